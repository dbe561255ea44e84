#!/usr/bin/env node
/**
 * The floor for media over HTTP: no MCP, no codec. Each POST's body is a file path (UTF-8); the answer is that
 * file's bytes, read fresh into one reused buffer (no allocation, no garbage), as one Content-Length body.
 * node:http on Node; on Bun, Bun.serve, which our HTTP server uses there too (listenBun). The media venue's
 * HTTP scenarios compare against it in --full. Prints "BENCH_READY <port>" once listening, on loopback only.
 */
import { open } from 'node:fs/promises';
import { createServer } from 'node:http';

/** One buffer, reused: with one client, each answer is on the wire before the next request. */
let buffer = Buffer.allocUnsafe(0);

/** The file's bytes in the reused buffer: open, fstat, read, close, as the raw pipe reads them. */
async function readFresh(path: string): Promise<Buffer> {
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

interface BunServe {
  serve(options: { hostname: string; port: number; idleTimeout: number; fetch(request: Request): Promise<Response> }): { port: number };
}
const bun = (globalThis as { Bun?: BunServe }).Bun;

if (bun) {
  // Rounds alternate the variants, so a connection can idle for seconds between two calls: keep it.
  const server = bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 120,
    fetch: async (request) => {
      const bytes = await readFresh(await request.text());
      // A view of the reused buffer (the Response copies a byte body when it is made, as the Fetch spec says).
      return new Response(new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength), { headers: { 'content-type': 'application/octet-stream' } });
    },
  });
  process.stdout.write(`BENCH_READY ${server.port}\n`);
} else {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      readFresh(Buffer.concat(chunks).toString('utf8')).then(
        (bytes) => {
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) });
          res.end(bytes);
        },
        (error: Error) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(error.message);
        },
      );
    });
  });
  // Rounds alternate the variants, so a connection can idle for seconds between two calls: node:http's 5 s
  // default closed it under the client.
  server.keepAliveTimeout = 120_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`BENCH_READY ${(server.address() as { port: number }).port}\n`));
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
