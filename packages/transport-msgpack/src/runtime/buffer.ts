// The Buffer the wire and codecs write into: the runtime's own where it has one (Node, Bun, Deno's npm
// scope, Workers with nodejs_compat), which is the fast path they are measured on; elsewhere (a browser, a
// Worker without nodejs_compat) a Uint8Array with the few Buffer methods this package calls, on the web's
// TextEncoder, TextDecoder, atob and btoa. Only what src/ uses is here: a new call to a Buffer method in the
// core needs its line below, and the edge test (scripts/test-edge.mjs) runs the core where this one is used.

type NodeBufferConstructor = typeof globalThis.Buffer;
type NodeBuffer = globalThis.Buffer;

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** Exported for its test only: the package uses it through `Buffer` below. */
export class WebBuffer extends Uint8Array {
  static allocUnsafe(size: number): WebBuffer {
    return new WebBuffer(size);
  }

  static allocUnsafeSlow(size: number): WebBuffer {
    return new WebBuffer(size);
  }

  static isBuffer(value: unknown): value is WebBuffer {
    return value instanceof WebBuffer;
  }

  static byteLength(text: string): number {
    let bytes = text.length;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code < 0x80) continue;
      if (code < 0x800) bytes += 1;
      else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        bytes += 2; // a surrogate pair: 2 units, 4 bytes
        i++;
      } else bytes += 2;
    }
    return bytes;
  }

  static override from(value: unknown, offsetOrEncoding?: unknown, length?: number): WebBuffer {
    if (typeof value === 'string') {
      if (offsetOrEncoding === 'base64') {
        const binary = atob(value.replace(/[^A-Za-z0-9+/]/g, ''));
        const bytes = new WebBuffer(binary.length);
        for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
        return bytes;
      }
      const encoded = utf8Encoder.encode(value);
      return new WebBuffer(encoded.buffer, encoded.byteOffset, encoded.byteLength);
    }
    if (value instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer)) {
      const offset = (offsetOrEncoding as number | undefined) ?? 0;
      return new WebBuffer(value as ArrayBuffer, offset, length ?? value.byteLength - offset);
    }
    const copy = new WebBuffer((value as ArrayLike<number>).length);
    copy.set(value as ArrayLike<number>);
    return copy;
  }

  override toString(encoding = 'utf8', start = 0, end = this.length): string {
    if (encoding === 'base64') return btoa(this.latin1Slice(start, end));
    if (encoding === 'hex') {
      let hex = '';
      for (let i = start; i < end; i++) hex += this[i]!.toString(16).padStart(2, '0');
      return hex;
    }
    if (encoding === 'latin1') return this.latin1Slice(start, end);
    return this.utf8Slice(start, end);
  }

  utf8Slice(start: number, end: number): string {
    return utf8Decoder.decode(this.subarray(start, end));
  }

  latin1Slice(start: number, end: number): string {
    let text = '';
    for (let at = start; at < end; at += 4096) text += String.fromCharCode(...this.subarray(at, Math.min(end, at + 4096)));
    return text;
  }

  write(text: string, offset = 0): number {
    return utf8Encoder.encodeInto(text, this.subarray(offset)).written;
  }

  copy(target: Uint8Array, targetStart = 0, sourceStart = 0, sourceEnd = this.length): number {
    const piece = this.subarray(sourceStart, Math.min(sourceEnd, sourceStart + target.length - targetStart));
    target.set(piece, targetStart);
    return piece.length;
  }

  writeUInt32BE(value: number, offset = 0): number {
    new DataView(this.buffer, this.byteOffset, this.byteLength).setUint32(offset, value);
    return offset + 4;
  }
}

/** The runtime's Buffer, or a web stand-in with the methods this package uses (see above). */
export const Buffer: NodeBufferConstructor = (globalThis as { Buffer?: NodeBufferConstructor }).Buffer ?? (WebBuffer as unknown as NodeBufferConstructor);
export type Buffer = NodeBuffer;
