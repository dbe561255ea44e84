// A raw HTTP/1.1 client on node:net, so a probe can send what fetch and node:http will not (a forged or
// doubled Host, an empty header, a Content-Length with no body) the same way on Node and Bun.
import { connect } from 'node:net';

const STREAM_TYPES = ['text/event-stream', 'application/vnd.mcp-msgpack.stream'];
const REQUEST_WAIT_MS = 20_000;
const latin1 = new TextDecoder('latin1');

/**
 * Sends one request on a new connection (`Connection: close`). `headers` is a list of [name, value]. Resolves with
 * { status, headers: {name: [values]}, body, socket }: the whole body, or for a stream reply, only the headers when
 * `streamHeadersOnly`, else the stream until it ends. The socket is left open for a held stream (`keep`).
 */
export function httpRequest(url, { method, headers, body }, { streamHeadersOnly = false, keep = false } = {}) {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    let buffer = Buffer.alloc(0);
    let head = null;
    let settled = false;
    const timer = setTimeout(() => finish(new Error(`no complete reply within ${REQUEST_WAIT_MS} ms`)), REQUEST_WAIT_MS);
    const finish = (error, value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!keep || error) socket.destroy();
      if (error) reject(error);
      else resolve({ ...value, socket });
    };
    socket.on('connect', () => {
      const lines = [`${method} ${url.pathname} HTTP/1.1`, ...headers.map(([name, value]) => `${name}: ${value}`), '', ''];
      socket.write(lines.join('\r\n'));
      if (body) socket.write(body);
    });
    socket.on('error', (error) => (head ? tryFinish(true) : finish(error)));
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      tryFinish(false);
    });
    socket.on('end', () => tryFinish(true));
    socket.on('close', () => tryFinish(true));

    function tryFinish(ended) {
      if (settled) return;
      if (!head) {
        const at = buffer.indexOf('\r\n\r\n');
        if (at < 0) return ended ? finish(new Error(`connection closed before a complete status and headers (${buffer.length} bytes)`)) : undefined;
        head = parseHead(latin1.decode(buffer.subarray(0, at)));
        buffer = buffer.subarray(at + 4);
      }
      const type = (head.headers['content-type']?.[0] ?? '').split(';')[0].trim().toLowerCase();
      if (streamHeadersOnly && STREAM_TYPES.includes(type)) return finish(null, { ...head, body: new Uint8Array(0) });
      const length = head.headers['content-length']?.[0];
      if ((head.headers['transfer-encoding']?.[0] ?? '').toLowerCase().includes('chunked')) {
        const decoded = dechunk(buffer);
        if (decoded.done || ended) return finish(null, { ...head, body: decoded.body });
      } else if (length !== undefined) {
        if (buffer.length >= Number(length)) return finish(null, { ...head, body: buffer.subarray(0, Number(length)) });
        if (ended) return finish(null, { ...head, body: buffer });
      } else if (head.status === 204 || head.status === 304 || method === 'HEAD') {
        return finish(null, { ...head, body: new Uint8Array(0) });
      } else if (ended) return finish(null, { ...head, body: buffer });
    }
  });
}

function parseHead(text) {
  const [statusLine, ...lines] = text.split('\r\n');
  const status = Number(statusLine.split(' ')[1]);
  const headers = {};
  for (const line of lines) {
    const at = line.indexOf(':');
    if (at < 0) continue;
    const name = line.slice(0, at).trim().toLowerCase();
    (headers[name] ??= []).push(line.slice(at + 1).trim());
  }
  return { status, headers };
}

/** The body of chunked bytes so far, and whether the last chunk came. */
function dechunk(buffer) {
  const parts = [];
  let at = 0;
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', at);
    if (lineEnd < 0) return { body: Buffer.concat(parts), done: false };
    const size = parseInt(latin1.decode(buffer.subarray(at, lineEnd)), 16);
    if (Number.isNaN(size)) return { body: Buffer.concat(parts), done: true };
    if (size === 0) return { body: Buffer.concat(parts), done: true };
    if (buffer.length < lineEnd + 2 + size + 2) return { body: Buffer.concat(parts), done: false };
    parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
