// What the framework round trips share: the media directory (MEDIA_DIR) and the HTTP server (MEDIA_URL) the
// runner prepared, the expected file contents, and a tap on the bytes the server sends.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HttpMsgpackClientTransport, StdioMsgpackClientTransport } from 'mcp-msgpack-transport';

export const dir = process.env.MEDIA_DIR;
export const url = process.env.MEDIA_URL;
if (!dir || !url) throw new Error('run me from scripts/test-frameworks.mjs (MEDIA_DIR and MEDIA_URL are unset)');
export const runtime = typeof Bun === 'undefined' ? `node ${process.version}` : `bun ${Bun.version}`;
export const imagePath = join(dir, 'pixel.png');
export const textPath = join(dir, 'hello.txt');
export const png = readFileSync(imagePath);
export const text = readFileSync(textPath, 'utf8');
/** How a user starts the server: the published bin, through npx. */
export const serverCommand = { command: process.platform === 'win32' ? 'npx.cmd' : 'npx', args: ['mcp-filesystem-media-server', dir] };
export const TOOL_COUNT = 14;

export function check(condition, message) {
  if (!condition) throw new Error(`${runtime}: ${message}`);
}

/** An image content block whose base64 data is exactly the file's bytes. */
export function checkImage(block, what) {
  check(block?.type === 'image' && block.mimeType === 'image/png', `${what}: not a PNG image block: ${JSON.stringify(block)?.slice(0, 200)}`);
  check(typeof block.data === 'string' && Buffer.from(block.data, 'base64').equals(png), `${what}: the image bytes differ from the file`);
}

/**
 * Records what the server sends: for stdio, a `spawn` to give StdioMsgpackClientTransport (the child's stdout
 * is read by the transport as usual, and copied here); for HTTP, a `fetch` to give HttpMsgpackClientTransport
 * (each POST reply's body is cloned and kept with its Content-Type).
 */
export class WireTap {
  stdout = [];
  replies = [];
  pending = [];

  spawn = (command, args, options) => {
    const child = spawn(command, args, options);
    child.stdout.on('data', (chunk) => this.stdout.push(chunk));
    return child;
  };

  fetch = async (input, init) => {
    const response = await fetch(input, init);
    if ((init?.method ?? 'GET') === 'POST' && response.body) {
      const contentType = response.headers.get('content-type');
      const wireHeader = response.headers.get('mcp-msgpack-wire');
      const requestType = new Headers(init?.headers).get('content-type');
      // A 202 to a notification has no body: only answers count.
      this.pending.push(
        response
          .clone()
          .arrayBuffer()
          .then((body) => body.byteLength > 0 && this.replies.push({ requestType, contentType, wireHeader, body: Buffer.from(body) })),
      );
    }
    return response;
  };

  /**
   * Asserts the MessagePack wire with native bytes: the image travelled as raw bytes (a bin), not base64. Over
   * HTTP each reply is MessagePack, or a JSON body the server chose per reply (SPEC.md 9.6 rule 3): to a
   * MessagePack POST marked as msgpack-v1's (rule 5, `Mcp-Msgpack-Wire: v1`), which a server that speaks only
   * JSON would not send; to a JSON POST, which our client sends only once it knows the server (rule 7).
   */
  async checkNativeBytes(what) {
    await Promise.all(this.pending);
    if (this.replies.length > 0) {
      const kinds = [...new Set(this.replies.map((r) => `${r.requestType} -> ${r.contentType}${r.wireHeader ? ` (Mcp-Msgpack-Wire: ${r.wireHeader})` : ''}`))];
      check(
        this.replies.every(
          (r) =>
            /^application\/(msgpack|vnd\.mcp-msgpack\.stream)/.test(r.contentType ?? '') ||
            (/^application\/json/.test(r.contentType ?? '') && (r.wireHeader === 'v1' || /^application\/json/.test(r.requestType ?? ''))),
        ),
        `${what}: replies neither MessagePack nor msgpack-v1's per-reply JSON: ${kinds}`,
      );
      check(
        this.replies.some((r) => r.body.includes(png)),
        `${what}: no reply carries the image's raw bytes`,
      );
    } else {
      check(this.stdout.length > 0, `${what}: nothing recorded from the server`);
      check(Buffer.concat(this.stdout).includes(png), `${what}: the server's stdout does not carry the image's raw bytes`);
    }
  }
}

/**
 * Our client transports to the media server, as a user configures them for media (native bytes on), each
 * with a tap: stdio (the server started through npx) and HTTP (the runner's server).
 */
export function* ourTransports() {
  const stdioTap = new WireTap();
  yield ['stdio', { tap: stdioTap, transport: new StdioMsgpackClientTransport({ ...serverCommand, nativeBytes: true, spawn: stdioTap.spawn }) }];
  const httpTap = new WireTap();
  yield ['http', { tap: httpTap, transport: new HttpMsgpackClientTransport(new URL(url), { nativeBytes: true, fetch: httpTap.fetch }) }];
}
