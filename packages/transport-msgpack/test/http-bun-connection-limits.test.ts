// listenBun's connection limits (Bun only), from the same ListenOptions as listenNode: a body that trickles
// is answered 408 at requestTimeoutMs; past maxConnections requests in flight a request gets 503 with
// Retry-After; a kept-alive connection is closed after keepAliveTimeoutMs; Bun.serve itself closes a
// connection that sends no whole headers within about 10 s; a reply stream that writes (keep-alive frames)
// outlives idleTimeoutMs, since Bun.serve cuts writing streams at its idleTimeout (Bun 1.4.5) and listenBun
// exempts streams. Bun.serve checks its timeouts every 4 s: the bounds below allow for that.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HttpMsgpackClientTransport, McpHttpHandler, listenBun } from 'mcp-msgpack-transport';
import { createHttpTestServer, isBun, textOf } from './fixtures/http-helpers.js';
import { INITIALIZE_BODY, drip, initializeOnce, postHead, rawConnection, trickledInitialize } from './fixtures/raw-connections.js';

const IDLE_MS = 1_000;
const handler = () => new McpHttpHandler({ createServer: createHttpTestServer });

describe('listenBun connection limits', { timeout: 60_000, skip: isBun ? false : 'Bun.serve is Bun-only' }, () => {
  it('answers a body that trickles 408 at requestTimeoutMs, runs nothing of it, and closes its connection', async () => {
    const served = handler();
    const running = await listenBun(served, { requestTimeoutMs: 1_000, idleTimeoutMs: 30_000 });
    try {
      const { received, openFor } = await trickledInitialize(running.url, 200, 15_000);
      assert.match(received, /^HTTP\/1\.1 408 /);
      assert.match(received, /Request Timeout[\s\S]*request-timeout/);
      // Answered at the deadline, not at Bun.serve's idleTimeout (30 s here).
      assert.ok(openFor >= 1_000 && openFor < 5_000, `the trickling request was open for ${openFor} ms`);
      assert.equal(served.sessionCount, 0, 'the part of the body that came was not served');
      assert.equal((await initializeOnce(running.url)).status, 200);
    } finally {
      await running.close();
    }
  });

  it('answers requests past maxConnections in flight 503 with Retry-After, and serves again once they end', async () => {
    const running = await listenBun(handler(), { maxConnections: 3, requestTimeoutMs: 0 });
    const held = [0, 1, 2].map(() => rawConnection(running.url, 20_000));
    try {
      // Three requests in flight: their bodies never finish.
      for (const connection of held) connection.socket.write(postHead(running.url, 100));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const refused = await initializeOnce(running.url);
      assert.equal(refused.status, 503);
      assert.equal(refused.retryAfter, '1');
      assert.match(refused.body, /too many requests in flight[\s\S]*too-many-in-flight/);
      for (const connection of held) connection.socket.destroy();
      await Promise.all(held.map((connection) => connection.closed));
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal((await initializeOnce(running.url)).status, 200);
    } finally {
      for (const connection of held) connection.socket.destroy();
      await running.close();
    }
  });

  it('closes a kept-alive connection after keepAliveTimeoutMs, and silent and byte-at-a-time ones within 14 s', async () => {
    const running = await listenBun(handler(), { keepAliveTimeoutMs: IDLE_MS, idleTimeoutMs: 30_000 });
    try {
      const kept = rawConnection(running.url, 20_000);
      kept.socket.write(postHead(running.url, Buffer.byteLength(INITIALIZE_BODY)) + INITIALIZE_BODY);
      const silent = Array.from({ length: 20 }, () => rawConnection(running.url, 20_000));
      const slow = Array.from({ length: 20 }, () => rawConnection(running.url, 20_000));
      const stops = slow.map((connection) => drip(connection.socket, `POST ${running.url.pathname} HTTP/1.1\r\nHost: ${running.url.host}\r\nX-Slow: ${'x'.repeat(100)}`, 500));
      const keptFor = await kept.closed;
      assert.match(kept.received(), /^HTTP\/1\.1 200/);
      // Answered, then closed once the keep-alive timeout passed: well before idleTimeoutMs (30 s here).
      assert.ok(keptFor < 6_000, `a kept-alive connection stayed open ${keptFor} ms`);
      const [silentFor, slowFor] = await Promise.all([Promise.all(silent.map((c) => c.closed)), Promise.all(slow.map((c) => c.closed))]);
      for (const stop of stops) stop();
      // Bun.serve's own deadline for a new connection's headers (10 s, checked every 4 s), whatever the options.
      assert.ok(Math.max(...silentFor) < 15_000, `a silent connection stayed open ${Math.max(...silentFor)} ms`);
      assert.ok(Math.max(...slowFor) < 15_000, `a byte-at-a-time connection stayed open ${Math.max(...slowFor)} ms`);
      assert.equal((await initializeOnce(running.url)).status, 200);
    } finally {
      await running.close();
    }
  });

  it('keeps a reply stream that writes open past idleTimeoutMs, to its end', async () => {
    const served = new McpHttpHandler({ createServer: createHttpTestServer, keepAliveMs: IDLE_MS / 4 });
    const running = await listenBun(served, { idleTimeoutMs: IDLE_MS });
    const client = new Client({ name: 'bun-limits', version: '1.0.0' });
    try {
      await client.connect(new HttpMsgpackClientTransport(running.url));
      const result = await client.callTool({ name: 'slow', arguments: { ms: 6 * IDLE_MS } }, undefined, { timeout: 20_000 });
      assert.equal(textOf(result), 'slept');
    } finally {
      await client.close();
      await running.close();
    }
  });
});
