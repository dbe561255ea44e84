import { Buffer } from '../runtime/buffer.js';

/**
 * MessagePack str values (header, then UTF-8) written into the encoder's buffer, room already made.
 * Plain functions of the buffer, not encoder methods: the encoder calls them once per string, as it did
 * its own methods, with no closure or allocation per call.
 */

/** Strings shorter than this are encoded by hand: cheaper than a native call for short keys and values. */
export const SHORT_STRING = 32;
/** Strings longer than this are measured first, so a large text does not reserve three times its size. */
const LONG_STRING = 4096;

/** Room to make before writeShortStr: the widest header it may need, and three bytes per UTF-16 unit. */
export function shortStrRoom(length: number): number {
  return 3 + length * 3;
}

/**
 * A string of fewer than SHORT_STRING units as str at `at`, by hand, ASCII first (keys and short values
 * nearly always are), behind a header sized for one byte per unit; a string that needs more bytes has
 * them moved behind the header it needs. Returns the position after it.
 */
export function writeShortStr(buf: Buffer, at: number, s: string): number {
  const length = s.length;
  const reserved = length < 32 ? 1 : 2;
  const start = at + reserved;
  let i = 0;
  for (; i < length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) break;
    buf[start + i] = c;
  }
  if (i === length && reserved === 1) {
    // All ASCII, fewer than 32 bytes: the fixstr header reserved is the one needed. Kept apart from
    // placeStrHeader so this common case stays small enough for V8 to inline into the encoder.
    buf[at] = 0xa0 | length;
    return start + length;
  }
  const bytes = i === length ? length : writeUtf8ByHand(buf, s, i, start + i) - start;
  return placeStrHeader(buf, at, reserved, bytes);
}

/**
 * The most UTF-8 bytes a string of SHORT_STRING units or more may take: exact past LONG_STRING units (one
 * native pass), three per unit below.
 */
export function strMaxBytes(s: string): number {
  return s.length > LONG_STRING ? Buffer.byteLength(s, 'utf8') : s.length * 3;
}

/**
 * A string as str at `at`, by the runtime's native UTF-8 writer, behind a header reserved for `maxBytes`
 * (strMaxBytes; room for strHeaderBytes(maxBytes) + maxBytes made). Returns the position after it.
 */
export function writeStr(buf: Buffer, at: number, s: string, maxBytes: number): number {
  const reserved = strHeaderBytes(maxBytes);
  return placeStrHeader(buf, at, reserved, writeUtf8(buf, s, at + reserved));
}

export function strHeaderBytes(bytes: number): number {
  return bytes < 32 ? 1 : bytes < 0x100 ? 2 : bytes < 0x10000 ? 3 : 5;
}

/**
 * Writes the header of a str whose `bytes` were written after `reserved` header bytes at `at`, moving
 * them first if the header needs another size. Returns the position after the str.
 */
function placeStrHeader(buf: Buffer, at: number, reserved: number, bytes: number): number {
  const header = strHeaderBytes(bytes);
  if (header !== reserved) buf.copyWithin(at + header, at + reserved, at + reserved + bytes);
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
    buf.writeUInt32BE(bytes, at + 1);
  }
  return at + header + bytes;
}

/**
 * UTF-8 of `s` from unit `from` on, written at `at`, with lone surrogates replaced by U+FFFD exactly as
 * Buffer and TextEncoder do. Returns the position after the last byte.
 */
function writeUtf8ByHand(buf: Buffer, s: string, from: number, at: number): number {
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

// Node and Bun expose Buffer's native UTF-8 writer as a method; calling it directly skips write()'s
// argument and encoding checks, which cost as much as the copy itself for the short strings of
// object-heavy messages. (Called as a method: going through .call() costs more per string, as the codec
// venue shows, `mcp-msgpack-bench --scenario codec`.) The
// length is given: Node and Bun default it to what follows `offset`, Cloudflare Workers' Buffer
// (nodejs_compat) to the whole buffer, which it then refuses as out of range for any offset but 0.
type NativeUtf8Buffer = Buffer & { utf8Write(text: string, offset: number, length: number): number };
const hasNativeUtf8Write = typeof (Buffer.prototype as Partial<NativeUtf8Buffer>).utf8Write === 'function';

/** The UTF-8 of `text` written at `offset`; returns the number of bytes written. */
function writeUtf8(buf: Buffer, text: string, offset: number): number {
  return hasNativeUtf8Write ? (buf as NativeUtf8Buffer).utf8Write(text, offset, buf.length - offset) : buf.write(text, offset, 'utf8');
}
