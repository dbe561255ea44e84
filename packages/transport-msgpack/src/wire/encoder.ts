import { FRAME_HEADER_BYTES, MAX_FRAME_BYTES_LIMIT } from './constants.js';
import { PiecesOutput } from './encode-pieces.js';
import { SHORT_STRING, shortStrRoom, strHeaderBytes, strMaxBytes, writeShortStr, writeStr } from './encode-string.js';
import { PayloadError } from './errors.js';

/**
 * Canonical msgpack-v1 encoder (SPEC.md, "Canonical encoding").
 *
 * msgpackr is not used for encoding because it cannot produce canonical frames: it writes integers beyond
 * 32 bits as float64, writes `undefined` as an ext, and packs into a shared target buffer that it keeps at
 * its largest size. This encoder writes the JSON data model only, with the smallest header for every
 * value, into an arena (encode-arena.ts), large bins by reference when asked for pieces (encode-pieces.ts).
 */

/** Deeper than this the value is almost certainly circular; JSON.stringify throws there too. */
const MAX_ENCODE_DEPTH = 1000;
const TWO_POW_32 = 0x1_0000_0000;
const TWO_POW_63 = 2 ** 63;
const TWO_POW_64 = 2 ** 64;

export class CanonicalEncoder extends PiecesOutput {
  /** One frame: the 4-byte big-endian payload length, then the payload. Written in place, never copied. */
  encodeFrame(value: unknown): Uint8Array {
    return this.run(value, true, false)[0]!;
  }

  /** One bare MessagePack value (an HTTP body): no header. */
  encode(value: unknown): Uint8Array {
    return this.run(value, false, false)[0]!;
  }

  /**
   * The same bytes as encodeFrame, as pieces to write in order (one writev): bins of BIN_BY_REFERENCE
   * bytes or more are not copied into the frame but stand as pieces of their own, so a 5 MiB image costs
   * no second 5 MiB buffer, no copy and no garbage. The caller must not change those bins until written.
   */
  encodeFramePieces(value: unknown): Uint8Array[] {
    return this.run(value, true, true);
  }

  /** encode() as pieces, as encodeFramePieces. */
  encodePieces(value: unknown): Uint8Array[] {
    return this.run(value, false, true);
  }

  private run(value: unknown, framed: boolean, pieces: boolean): Uint8Array[] {
    this.startMessage(pieces);
    const startBuf = this.buf;
    const start = this.pos;
    try {
      if (framed) this.pos += FRAME_HEADER_BYTES;
      this.write(value, 0);
      const payloadBytes = this.logicalPos() - (framed ? FRAME_HEADER_BYTES : 0);
      if (framed && payloadBytes > MAX_FRAME_BYTES_LIMIT) {
        throw new PayloadError('unencodable', `message of ${payloadBytes} bytes does not fit a 4-byte frame header`);
      }
      if (framed) this.writeFrameHeader(payloadBytes);
      return this.takeMessage();
    } catch (error) {
      this.abandonMessage(startBuf, start);
      throw error;
    }
  }

  private write(value: unknown, depth: number): void {
    // An if-chain, not switch (typeof value): V8 compiles each `typeof x === '...'` to a type check, while a
    // switch materialises the typeof string with a builtin call for every value.
    if (typeof value === 'string') return this.writeString(value);
    if (typeof value === 'number') return this.writeNumber(value);
    if (typeof value === 'object') {
      if (value === null) {
        this.ensure(1);
        this.buf[this.pos++] = 0xc0;
        return;
      }
      if (depth >= MAX_ENCODE_DEPTH) {
        throw new PayloadError('unencodable', `value nested deeper than ${MAX_ENCODE_DEPTH} levels (circular?)`);
      }
      if (Array.isArray(value)) return this.writeArray(value, depth + 1);
      if (value instanceof Uint8Array) return this.writeBin(value);
      if (ArrayBuffer.isView(value)) {
        throw new PayloadError('unencodable', `${value.constructor.name} has no msgpack-v1 encoding; send a Uint8Array`);
      }
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
        // Same as JSON.stringify: a Date becomes its ISO string, and so on.
        return this.write((value as { toJSON(): unknown }).toJSON(), depth);
      }
      return this.writeObject(value as Record<string, unknown>, depth + 1);
    }
    if (typeof value === 'boolean') {
      this.ensure(1);
      this.buf[this.pos++] = value ? 0xc3 : 0xc2;
      return;
    }
    if (typeof value === 'bigint') return this.writeBigInt(value);
    // undefined, functions and symbols: JSON.stringify writes null in arrays and at the top level.
    this.ensure(1);
    this.buf[this.pos++] = 0xc0;
  }

  private writeNumber(n: number): void {
    this.ensure(9);
    const buf = this.buf;
    if (n >>> 0 === n) {
      // 0 .. 2^32-1 (and -0, which JSON also writes as 0)
      if (n < 0x80) buf[this.pos++] = n;
      else if (n < 0x100) {
        buf[this.pos++] = 0xcc;
        buf[this.pos++] = n;
      } else if (n < 0x10000) {
        buf[this.pos++] = 0xcd;
        buf[this.pos++] = n >>> 8;
        buf[this.pos++] = n & 0xff;
      } else {
        buf[this.pos++] = 0xce;
        this.view.setUint32(this.pos, n);
        this.pos += 4;
      }
    } else if (n >> 0 === n) {
      // -2^31 .. -1
      if (n >= -0x20) buf[this.pos++] = n & 0xff;
      else if (n >= -0x80) {
        buf[this.pos++] = 0xd0;
        buf[this.pos++] = n & 0xff;
      } else if (n >= -0x8000) {
        buf[this.pos++] = 0xd1;
        this.view.setInt16(this.pos, n);
        this.pos += 2;
      } else {
        buf[this.pos++] = 0xd2;
        this.view.setInt32(this.pos, n);
        this.pos += 4;
      }
    } else if (Number.isInteger(n) && n >= -TWO_POW_63 && n < TWO_POW_64) {
      // Integral beyond 32 bits: uint64 / int64, as every other canonical msgpack encoder does.
      if (n > 0) {
        buf[this.pos++] = 0xcf;
        this.view.setUint32(this.pos, Math.floor(n / TWO_POW_32));
        this.view.setUint32(this.pos + 4, n % TWO_POW_32);
      } else {
        buf[this.pos++] = 0xd3;
        this.view.setBigInt64(this.pos, BigInt(n));
      }
      this.pos += 8;
    } else if (Number.isFinite(n)) {
      buf[this.pos++] = 0xcb;
      this.view.setFloat64(this.pos, n);
      this.pos += 8;
    } else {
      // NaN and ±Infinity have no JSON form; JSON.stringify writes null, so the same message says null here.
      buf[this.pos++] = 0xc0;
    }
  }

  private writeBigInt(n: bigint): void {
    if (n >= 0n && n < 0x1_0000_0000_0000_0000n) {
      if (n < 0x1_0000_0000n) return this.writeNumber(Number(n));
      this.ensure(9);
      this.buf[this.pos++] = 0xcf;
      this.view.setBigUint64(this.pos, n);
      this.pos += 8;
    } else if (n < 0n && n >= -0x8000_0000_0000_0000n) {
      if (n >= -0x8000_0000n) return this.writeNumber(Number(n));
      this.ensure(9);
      this.buf[this.pos++] = 0xd3;
      this.view.setBigInt64(this.pos, n);
      this.pos += 8;
    } else {
      throw new PayloadError('unencodable', `bigint ${n} does not fit in 64 bits`);
    }
  }

  private writeString(s: string): void {
    if (s.length < SHORT_STRING) {
      this.ensure(shortStrRoom(s.length));
      this.pos = writeShortStr(this.buf, this.pos, s);
      return;
    }
    // Long strings reserve their exact size (one native pass) instead of the 3-bytes-per-unit worst case.
    const maxBytes = strMaxBytes(s);
    this.ensure(strHeaderBytes(maxBytes) + maxBytes);
    this.pos = writeStr(this.buf, this.pos, s, maxBytes);
  }

  private writeBin(bytes: Uint8Array): void {
    const length = bytes.byteLength;
    const byReference = this.isByReference(length);
    this.ensure(5 + (byReference ? 0 : length));
    const buf = this.buf;
    if (length < 0x100) {
      buf[this.pos++] = 0xc4;
      buf[this.pos++] = length;
    } else if (length < 0x10000) {
      buf[this.pos++] = 0xc5;
      buf[this.pos++] = length >>> 8;
      buf[this.pos++] = length & 0xff;
    } else {
      buf[this.pos++] = 0xc6;
      this.view.setUint32(this.pos, length);
      this.pos += 4;
    }
    if (byReference) return this.cutOut(bytes);
    buf.set(bytes, this.pos);
    this.pos += length;
  }

  private writeArray(items: unknown[], depth: number): void {
    this.writeCollectionHeader(items.length, 0x90, 0xdc);
    for (let i = 0; i < items.length; i++) this.write(items[i], depth);
  }

  private writeObject(object: Record<string, unknown>, depth: number): void {
    this.ensure(1);
    // A position in the message, not in the buffer: writing the values may move the segment to a larger
    // buffer, or cut a large bin out of it.
    const headerAt = this.logicalPos();
    // Most objects have fewer than 16 members: write a fixmap header now and count while writing, with
    // for-in (no key array allocated per object, unlike Object.keys); widen the header in the rare case.
    this.pos++;
    let written = 0;
    for (const key in object) {
      if (!hasOwn(object, key)) continue; // own keys only, as JSON.stringify
      const value = object[key];
      // JSON drops these keys from objects, and so does msgpack-v1.
      if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
      this.writeString(key);
      this.write(value, depth);
      written++;
    }
    if (written < 16) {
      this.setByteAt(headerAt, 0x80 | written);
      return;
    }
    // A large bin was cut out after this header: join the pieces back into one segment (rare: only an
    // object of 16+ members holding a large bin pays this copy).
    this.rejoinFrom(headerAt);
    const size = collectionHeaderBytes(written);
    this.ensure(size - 1); // may move the segment: the header's place is computed after it
    const at = this.indexOf(headerAt);
    this.buf.copyWithin(at + size, at + 1, this.pos);
    this.pos += size - 1;
    this.writeCollectionHeaderAt(at, written, 0x80, 0xde);
  }

  private writeCollectionHeader(count: number, fixBase: number, header16: number): void {
    this.ensure(5);
    this.pos += this.writeCollectionHeaderAt(this.pos, count, fixBase, header16);
  }

  /** Writes an array or map header at `at` (room already made) and returns its size. */
  private writeCollectionHeaderAt(at: number, count: number, fixBase: number, header16: number): number {
    const buf = this.buf;
    if (count < 16) {
      buf[at] = fixBase | count;
      return 1;
    }
    if (count < 0x10000) {
      buf[at] = header16;
      buf[at + 1] = count >>> 8;
      buf[at + 2] = count & 0xff;
      return 3;
    }
    buf[at] = header16 + 1;
    this.view.setUint32(at + 1, count);
    return 5;
  }
}

const ownProperty = Object.prototype.hasOwnProperty;
function hasOwn(object: object, key: string): boolean {
  return ownProperty.call(object, key);
}

function collectionHeaderBytes(count: number): number {
  return count < 16 ? 1 : count < 0x10000 ? 3 : 5;
}
