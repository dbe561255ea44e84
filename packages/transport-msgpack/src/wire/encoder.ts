import { FRAME_HEADER_BYTES, MAX_FRAME_BYTES_LIMIT } from './constants.js';
import { PayloadError } from './errors.js';
import { joinPieces } from './pieces.js';
import { lendBytes } from '../buffers/lent-bytes.js';

/**
 * Canonical msgpack-v1 encoder (SPEC.md, "Canonical encoding").
 *
 * msgpackr is not used for encoding because it cannot produce canonical frames: it writes integers beyond
 * 32 bits as float64, writes `undefined` as an ext, and packs into a shared target buffer that it keeps at
 * its largest size. This encoder writes the JSON data model only, with the smallest header for every
 * value, into an arena whose oversized buffers are dropped as soon as the message that needed them is out
 * (one, up to MAX_SPARE_BYTES, is kept for the next large message once the writer reports it written).
 */

const ARENA_BYTES = 64 * 1024;
/** Below this many free bytes the arena is replaced before a message starts, so small frames rarely grow. */
const ARENA_MIN_FREE = 4 * 1024;
/** Largest arena kept from one message to the next (bigger messages get buffers of their own). */
const MAX_ARENA_BYTES = 1024 * 1024;
/** Largest buffer of its own kept for the next large message once the last one is written. */
const MAX_SPARE_BYTES = 16 * 1024 * 1024;
/** Deeper than this the value is almost certainly circular; JSON.stringify throws there too. */
const MAX_ENCODE_DEPTH = 1000;
const TWO_POW_32 = 0x1_0000_0000;
const TWO_POW_63 = 2 ** 63;
const TWO_POW_64 = 2 ** 64;
/** Bins this large or larger are sent as pieces of their own by encodeFramePieces/encodePieces. */
export const BIN_BY_REFERENCE = 32 * 1024;
/** Strings shorter than this are encoded by hand: cheaper than a native call for short keys and values. */
const SHORT_STRING = 32;
/** Strings longer than this are measured first, so a large text does not reserve three times its size. */
const LONG_STRING = 4096;

/** A buffer messages are written into, and how many of them are not yet known to be written out. */
interface BufferLease {
  readonly buffer: Buffer;
  /** A large message's buffer of its own (back as `spare`), or an arena (back as `spareArena`). */
  readonly own: boolean;
  unwritten: number;
  /** No longer written into: once nothing in it is unwritten, it can be used again. */
  retired: boolean;
}

export class CanonicalEncoder {
  private buf: Buffer = Buffer.allocUnsafeSlow(ARENA_BYTES);
  /**
   * The current buffer's lease. Each message placed in it is lent (lent-bytes) through its last piece there,
   * and writers that know the kernel has the bytes give it back: a buffer whose messages all came back is
   * reused instead of a fresh one. Messages of one arena may go to different sockets, hence a count per
   * buffer; one message never given back keeps its buffer from reuse (it is then just garbage-collected).
   * Without this, every large message allocated a buffer of its own, and a stream of 50 KB messages a fresh
   * 200 KB arena every few messages, and V8's background threads spent twice JSON's time collecting them.
   * Default-sized arenas are not leased: small messages fill one rarely, and lending each of them (a write
   * callback per message) cost more than it saved.
   */
  private lease: BufferLease | undefined;
  /** A retired arena whose messages were all written: taken by the next arena of a fitting size. */
  private spareArena: Buffer | undefined;
  private view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  private pos = 0;
  /** Where the current segment starts in `buf`: the message start, until a large bin is cut out. */
  private segmentStart = 0;
  private grew = false;
  /** Arena bytes of the last message (bins sent by reference not counted): the next one's estimate. */
  private lastSize = 0;
  /** Pieces already cut off the message (pieces mode only): arena segments and large bins, in order. */
  private cut: Uint8Array[] | undefined;
  /** Bytes in `cut`. */
  private cutBytes = 0;
  /** Bytes of the large bins in `cut` (not arena bytes: left out of the next message's size estimate). */
  private referencedBytes = 0;
  /** A large message's buffer whose message was written: for the next large message; dropped by a small one. */
  private spare: Buffer | undefined;

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
    this.grew = false;
    this.makeRoomFor(this.lastSize + (this.lastSize >>> 2));
    const startBuf = this.buf;
    const start = this.pos;
    this.segmentStart = start;
    this.cut = pieces ? [] : undefined;
    this.cutBytes = 0;
    this.referencedBytes = 0;
    try {
      if (framed) this.pos += FRAME_HEADER_BYTES;
      this.write(value, 0);
      const payloadBytes = this.logicalPos() - (framed ? FRAME_HEADER_BYTES : 0);
      if (framed && payloadBytes > MAX_FRAME_BYTES_LIMIT) {
        throw new PayloadError('unencodable', `message of ${payloadBytes} bytes does not fit a 4-byte frame header`);
      }
      this.lastSize = this.logicalPos() - this.referencedBytes;
      let out: Uint8Array[];
      if (this.cut === undefined || this.cut.length === 0) {
        if (framed) this.view.setUint32(this.segmentStart, payloadBytes);
        let whole: Uint8Array = this.buf.subarray(this.segmentStart, this.pos);
        // A message far smaller than the buffer of its own (the estimate was off) must not pin that
        // buffer until it is written: copying it out costs less than the allocation already made.
        if (this.grew && whole.length * 4 < this.buf.length) whole = Buffer.from(whole);
        out = [whole];
      } else {
        out = this.cut;
        if (this.pos > this.segmentStart) out.push(this.buf.subarray(this.segmentStart, this.pos));
        // The first piece is always an arena segment that starts with the header (a cut follows a bin header).
        if (framed) new DataView(out[0]!.buffer, out[0]!.byteOffset, FRAME_HEADER_BYTES).setUint32(0, payloadBytes);
      }
      // Later messages start after this one, so `out` is never overwritten. A buffer grown for one big
      // message is not kept as the arena: the next message gets a fresh one, and the big one dies with
      // `out`, or comes back as the spare once `out` is written.
      if (this.lease !== undefined) this.lendLastPiece(this.lease, out);
      if (this.grew) this.replaceArena(0);
      return out;
    } catch (error) {
      // A message that failed after growing the buffer must not leave the large buffer behind either.
      if (this.grew || this.buf !== startBuf) this.replaceArena(0);
      else this.pos = start;
      throw error;
    } finally {
      this.cut = undefined;
    }
  }

  /** Bytes written so far in the current message, pieces already cut included. */
  private logicalPos(): number {
    return this.cutBytes + (this.pos - this.segmentStart);
  }

  /**
   * Starts each message where it will most likely fit without growing mid-write (a grow copies what was
   * written so far): messages in one stream tend to be alike, so the last size is the estimate. Arenas are
   * kept up to MAX_ARENA_BYTES; a message expected to be larger gets a buffer of its own (the spare, if one
   * came back written and fits).
   */
  private makeRoomFor(estimate: number): void {
    const wanted = Math.max(ARENA_MIN_FREE, estimate);
    if (wanted * 4 <= MAX_ARENA_BYTES) {
      this.spare = undefined; // small messages again: no reason to hold a large buffer
      if (this.buf.length - this.pos < wanted) this.replaceArena(Math.max(ARENA_BYTES, wanted * 4));
      return;
    }
    const size = wanted + ARENA_MIN_FREE;
    const spare = this.spare;
    this.spare = undefined;
    this.useOwnBuffer(spare !== undefined && spare.length >= size ? spare : Buffer.allocUnsafeSlow(size + (size >>> 3)), 0);
  }

  /** Counts a message as unwritten in its buffer, and lends its last piece there to settle it once written. */
  private lendLastPiece(lease: BufferLease, out: readonly Uint8Array[]): void {
    for (let i = out.length - 1; i >= 0; i--) {
      const piece = out[i]!;
      if (piece.buffer !== lease.buffer.buffer) continue;
      lease.unwritten++;
      lendBytes(piece, () => {
        lease.unwritten--;
        if (lease.retired && lease.unwritten === 0) this.keep(lease);
      });
      return;
    }
  }

  /** A retired buffer whose messages were all written goes back to its slot (the larger one is kept). */
  private keep(lease: BufferLease): void {
    const buffer = lease.buffer;
    if (lease.own) {
      if (this.spare === undefined || this.spare.length < buffer.length) this.spare = buffer;
    } else if (this.spareArena === undefined || this.spareArena.length < buffer.length) {
      this.spareArena = buffer;
    }
  }

  /** A new arena of at least `size` bytes (0: none until the next message asks): a spare one if it fits. */
  private replaceArena(size: number): void {
    if (size === 0) return this.useBuffer(Buffer.allocUnsafe(0), 0, undefined);
    const spare = this.spareArena;
    const buffer = spare !== undefined && spare.length >= size ? spare : Buffer.allocUnsafeSlow(size);
    if (buffer === spare) this.spareArena = undefined;
    this.useBuffer(buffer, 0, size > ARENA_BYTES ? 'arena' : undefined);
  }

  /** A buffer for one large message (this one), leased so it can serve the next large message once written. */
  private useOwnBuffer(buffer: Buffer, pos: number): void {
    this.useBuffer(buffer, pos, buffer.length <= MAX_SPARE_BYTES ? 'own' : undefined);
    this.grew = true; // not kept as the arena once this message is out
  }

  /**
   * Switches to `buffer` (leased as `kind`, or not at all), retiring the current one: it returns to its
   * slot once its messages are written.
   */
  private useBuffer(buffer: Buffer, pos: number, kind: 'arena' | 'own' | undefined): void {
    const lease = this.lease;
    if (lease !== undefined) {
      lease.retired = true;
      if (lease.unwritten === 0) this.keep(lease);
    }
    this.lease = kind === undefined ? undefined : { buffer, own: kind === 'own', unwritten: 0, retired: false };
    this.buf = buffer;
    this.view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    this.pos = pos;
    this.segmentStart = 0;
  }

  /**
   * Makes room for `bytes` more, moving the current segment to a larger buffer if needed (pieces already
   * cut stay where they are).
   */
  private ensure(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const used = this.pos - this.segmentStart;
    const next = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, used + bytes + ARENA_BYTES));
    this.buf.copy(next, 0, this.segmentStart, this.pos);
    this.useOwnBuffer(next, used);
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
    const length = s.length;
    if (length < SHORT_STRING) {
      // By hand, ASCII first (keys and short values nearly always are), behind a header sized for one byte
      // per unit; a string that needs more bytes has its bytes moved behind the header it needs.
      this.ensure(3 + length * 3);
      const buf = this.buf;
      const headerAt = this.pos;
      const reserved = length < 32 ? 1 : 2;
      const start = headerAt + reserved;
      let i = 0;
      for (; i < length; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[start + i] = c;
      }
      const bytes = i === length ? length : this.writeUtf8ByHand(s, i, start + i) - start;
      const header = headerBytesForStr(bytes);
      if (header !== reserved) buf.copyWithin(headerAt + header, start, start + bytes);
      this.writeStrHeader(headerAt, bytes);
      this.pos = headerAt + header + bytes;
      return;
    }
    // Long strings reserve their exact size (one native pass) instead of the 3-bytes-per-unit worst case.
    const maxBytes = length > LONG_STRING ? Buffer.byteLength(s, 'utf8') : length * 3;
    const reserved = headerBytesForStr(maxBytes);
    this.ensure(reserved + maxBytes);
    const headerAt = this.pos;
    const bytes = writeUtf8(this.buf, s, headerAt + reserved);
    const header = headerBytesForStr(bytes);
    if (header !== reserved) this.buf.copyWithin(headerAt + header, headerAt + reserved, headerAt + reserved + bytes);
    this.writeStrHeader(headerAt, bytes);
    this.pos = headerAt + header + bytes;
  }

  /**
   * UTF-8 of `s` from unit `from` on, written at `at`, with lone surrogates replaced by U+FFFD exactly as
   * Buffer and TextEncoder do. Returns the position after the last byte.
   */
  private writeUtf8ByHand(s: string, from: number, at: number): number {
    const buf = this.buf;
    let p = at;
    for (let i = from; i < s.length; i++) {
      let c = s.charCodeAt(i);
      if (c < 0x80) {
        buf[p++] = c;
      } else if (c < 0x800) {
        buf[p++] = 0xc0 | (c >> 6);
        buf[p++] = 0x80 | (c & 0x3f);
      } else if (c >= 0xd800 && c <= 0xdfff) {
        const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          i++;
          buf[p++] = 0xf0 | (c >> 18);
          buf[p++] = 0x80 | ((c >> 12) & 0x3f);
          buf[p++] = 0x80 | ((c >> 6) & 0x3f);
          buf[p++] = 0x80 | (c & 0x3f);
        } else {
          buf[p++] = 0xef;
          buf[p++] = 0xbf;
          buf[p++] = 0xbd;
        }
      } else {
        buf[p++] = 0xe0 | (c >> 12);
        buf[p++] = 0x80 | ((c >> 6) & 0x3f);
        buf[p++] = 0x80 | (c & 0x3f);
      }
    }
    return p;
  }

  private writeStrHeader(at: number, bytes: number): void {
    const buf = this.buf;
    if (bytes < 32) buf[at] = 0xa0 | bytes;
    else if (bytes < 0x100) {
      buf[at] = 0xd9;
      buf[at + 1] = bytes;
    } else if (bytes < 0x10000) {
      buf[at] = 0xda;
      buf[at + 1] = bytes >>> 8;
      buf[at + 2] = bytes & 0xff;
    } else {
      buf[at] = 0xdb;
      this.view.setUint32(at + 1, bytes);
    }
  }

  private writeBin(bytes: Uint8Array): void {
    const length = bytes.byteLength;
    this.ensure(5 + (this.cut !== undefined && length >= BIN_BY_REFERENCE ? 0 : length));
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
    if (this.cut !== undefined && length >= BIN_BY_REFERENCE) {
      // Close the segment after the bin's header; the bin itself becomes the next piece.
      this.cut.push(buf.subarray(this.segmentStart, this.pos), bytes);
      this.cutBytes += this.pos - this.segmentStart + length;
      this.referencedBytes += length;
      this.segmentStart = this.pos;
      return;
    }
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
    if (headerAt < this.cutBytes) this.rejoinFrom(headerAt);
    const size = collectionHeaderBytes(written);
    this.ensure(size - 1); // may move the segment: the header's place is computed after it
    const at = this.segmentStart + (headerAt - this.cutBytes);
    this.buf.copyWithin(at + size, at + 1, this.pos);
    this.pos += size - 1;
    this.writeCollectionHeaderAt(at, written, 0x80, 0xde);
  }

  /** Writes one byte at a message position, in the current segment or in a piece already cut. */
  private setByteAt(position: number, byte: number): void {
    if (position >= this.cutBytes) {
      this.buf[this.segmentStart + (position - this.cutBytes)] = byte;
      return;
    }
    let offset = position;
    for (const piece of this.cut!) {
      if (offset < piece.length) {
        piece[offset] = byte; // always an arena segment: headers are never inside a bin
        return;
      }
      offset -= piece.length;
    }
  }

  /** Copies the cut pieces from the one holding `position` onwards, and the current segment, into one new segment. */
  private rejoinFrom(position: number): void {
    const cut = this.cut!;
    let first = 0;
    let before = 0;
    while (before + cut[first]!.length <= position) before += cut[first++]!.length;
    const tail = cut.splice(first);
    const segment = this.buf.subarray(this.segmentStart, this.pos);
    tail.push(segment);
    const { buffer, written } = joinPieces(tail, this.cutBytes - before + segment.length + ARENA_BYTES);
    this.cutBytes = before;
    this.useOwnBuffer(buffer, written);
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

// Node and Bun expose Buffer's native UTF-8 writer as a method; calling it directly skips write()'s
// argument and encoding checks, which cost as much as the copy itself for the short strings of
// object-heavy messages. (Called as a method: going through .call() cost another 100 ns a string.)
type NativeUtf8Buffer = Buffer & { utf8Write(text: string, offset: number): number };
const hasNativeUtf8Write = typeof (Buffer.prototype as Partial<NativeUtf8Buffer>).utf8Write === 'function';

function writeUtf8(buf: Buffer, text: string, offset: number): number {
  return hasNativeUtf8Write ? (buf as NativeUtf8Buffer).utf8Write(text, offset) : buf.write(text, offset, 'utf8');
}

const hasOwnProperty = Object.prototype.hasOwnProperty;
function hasOwn(object: object, key: string): boolean {
  return hasOwnProperty.call(object, key);
}

function headerBytesForStr(bytes: number): number {
  return bytes < 32 ? 1 : bytes < 0x100 ? 2 : bytes < 0x10000 ? 3 : 5;
}

function collectionHeaderBytes(count: number): number {
  return count < 16 ? 1 : count < 0x10000 ? 3 : 5;
}
