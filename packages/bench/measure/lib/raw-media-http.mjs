// The physical reference for media over HTTP: no MCP, no codec. Each POST's body is a file path (UTF-8); the
// answer is that file's bytes, read fresh into one reused buffer (no allocation, no garbage), as one
// Content-Length body. node:http on Node; on Bun, Bun.serve (what the media server's CLI serves with there),
// or node:http with --node-http. Prints its URL as its first line, so child-server.mjs's startUrlPrinter
// starts it; listens on 127.0.0.1 only.
//   node|bun packages/bench/measure/lib/raw-media-http.mjs [--node-http]
import { open } from 'node:fs/promises';
import http from 'node:http';

/** One buffer, reused: each answer is complete on the wire before the client asks again (one client, in turn). */
let buffer = Buffer.allocUnsafe(0);

/** The file's bytes in the reused buffer: open, fstat, read, close. */
async function readFresh(path) {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    if (buffer.length < size) buffer = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await file.read(buffer, filled, size - filled, filled);
      if (bytesRead === 0) throw new Error(`${path} shrank while being read`);
      filled += bytesRead;
    }
    return buffer.subarray(0, size);
  } finally {
    await file.close();
  }
}

const useBunServe = typeof globalThis.Bun !== 'undefined' && !process.argv.includes('--node-http');

if (useBunServe) {
  const server = globalThis.Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 120, // seconds: variants take turns (see the keep-alive note below)
    async fetch(request) {
      const bytes = await readFresh(await request.text());
      return new Response(bytes, { headers: { 'content-type': 'application/octet-stream' } });
    },
  });
  process.stdout.write(`http://127.0.0.1:${server.port}/\n`);
  process.on('SIGTERM', () => {
    server.stop(true);
    process.exit(0);
  });
} else {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      readFresh(Buffer.concat(chunks).toString('utf8')).then(
        (bytes) => {
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) });
          res.end(bytes);
        },
        (error) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(String(error.message));
        },
      );
    });
  });
  // Variants take turns, so a connection can idle for seconds between two calls: keep it (node:http's
  // default of 5 s closed it under the client, which then failed its next request).
  server.keepAliveTimeout = 120_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}/\n`));
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
