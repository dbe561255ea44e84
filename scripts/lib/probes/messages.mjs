// Reading what a server sends, independently of the transport under test: msgpack-v1 frames and JSON lines
// (SPEC.md 7.4: at a message's first byte, `{` or whitespace starts a line, anything else a frame), and the
// HTTP bodies of SPEC.md 9.1 (one MessagePack value, JSON, SSE, the frame stream). Decoded with
// @msgpack/msgpack, not this repository's decoder, so a fault shared by both servers' wires is not hidden.
import { decode } from '@msgpack/msgpack';

const text = new TextDecoder();

/** Splits a growing byte stream into messages; `push(bytes)` returns the messages it completed. */
export class MixedStreamReader {
  #buffer = new Uint8Array(0);

  push(chunk) {
    const joined = new Uint8Array(this.#buffer.length + chunk.length);
    joined.set(this.#buffer);
    joined.set(chunk, this.#buffer.length);
    this.#buffer = joined;
    const messages = [];
    for (;;) {
      const b = this.#buffer;
      if (b.length === 0) break;
      if (b[0] === 0x7b || b[0] === 0x20 || b[0] === 0x0a || b[0] === 0x0d || b[0] === 0x09) {
        const end = b.indexOf(0x0a);
        if (end < 0) break;
        const line = text.decode(b.subarray(0, end)).trim();
        this.#buffer = b.subarray(end + 1);
        if (line !== '') messages.push(JSON.parse(line));
      } else {
        if (b.length < 4) break;
        const length = new DataView(b.buffer, b.byteOffset, 4).getUint32(0);
        if (b.length < 4 + length) break;
        messages.push(decode(b.subarray(4, 4 + length)));
        this.#buffer = b.subarray(4 + length);
      }
    }
    return messages;
  }
}

/** The JSON-RPC messages of an HTTP body, by its Content-Type (control maps of the frame stream left out). */
export function bodyMessages(contentType, body) {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (body.length === 0) return [];
  if (type === 'application/msgpack' || type === 'application/vnd.msgpack') return flatten(decode(body));
  if (type === 'application/json') return flatten(JSON.parse(text.decode(body)));
  if (type === 'text/event-stream') {
    const out = [];
    for (const event of text.decode(body).split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data !== '') out.push(...flatten(JSON.parse(data)));
    }
    return out;
  }
  if (type === 'application/vnd.mcp-msgpack.stream') {
    const out = [];
    let at = 0;
    while (at + 4 <= body.length) {
      const length = new DataView(body.buffer, body.byteOffset + at, 4).getUint32(0);
      if (at + 4 + length > body.length) break;
      const value = decode(body.subarray(at + 4, at + 4 + length));
      if (value && typeof value === 'object' && 'jsonrpc' in value) out.push(value);
      at += 4 + length;
    }
    return out;
  }
  return [];
}

function flatten(value) {
  return Array.isArray(value) ? value : [value];
}

/** A response (has an id, no method). */
export function isResponse(message) {
  return message !== null && typeof message === 'object' && !('method' in message) && ('result' in message || 'error' in message);
}
