// listenNode's connection limits: a connection that sends nothing is closed once it has been idle too long,
// one that sends its headers a byte at a time once its header deadline passes, one whose body trickles is
// answered 408 at its request deadline; past maxConnections a new one is dropped when every connection has a
// request in flight; normal use goes on. On Bun these run on Bun's node:http, which keeps the same limits.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpHttpHandler, listenNode } from 'mcp-msgpack-transport';
import { createHttpTestServer } from './fixtures/http-helpers.js';
import { connectionsOf, waitUntil } from './fixtures/connection-count.js';
import { drip, INITIALIZE_BODY, initializeOnce, postHead, rawConnection, trickledInitialize, wholeReply } from './fixtures/raw-connections.js';

const DEADLINE_MS = 400;
const handler = () => new McpHttpHandler({ createServer: createHttpTestServer });

describe('listenNode connection limits', { timeout: 20_000 }, () => {
  it('closes a silent connection at the idle deadline and a byte-at-a-time one at the header deadline, and still serves', async () => {
    const running = await listenNode(handler(), { headersTimeoutMs: DEADLINE_MS, requestTimeoutMs: 2 * DEADLINE_MS, idleTimeoutMs: 2 * DEADLINE_MS });
    try {
      const silent = rawConnection(running.url, 10_000);
      const slow = rawConnection(running.url, 10_000);
      const stop = drip(slow.socket, `POST /mcp HTTP/1.1\r\nHost: ${running.url.host}\r\n`, 50);
      const [silentFor, slowFor] = await Promise.all([silent.closed, slow.closed]);
      stop();
      // Closed after the deadline and the checking interval (1 s), never left open.
      assert.ok(silentFor >= DEADLINE_MS && silentFor < 5_000, `silent connection open for ${silentFor} ms`);
      assert.ok(slowFor >= DEADLINE_MS && slowFor < 5_000, `slow connection open for ${slowFor} ms`);
      assert.equal((await initializeOnce(running.url)).status, 200);
    } finally {
      await running.close();
    }
  });

  it('answers a body that trickles 408 at the request deadline, runs nothing of it, and closes its connection', async () => {
    const served = handler();
    const running = await listenNode(served, { requestTimeoutMs: 1_000 });
    try {
      const { received, openFor } = await trickledInitialize(running.url, 200, 10_000);
      assert.match(received, /^HTTP\/1\.1 408 /);
      assert.ok(openFor >= 1_000 && openFor < 5_000, `the trickling request was open for ${openFor} ms`);
      assert.equal(served.sessionCount, 0, 'the part of the body that came was not served');
      assert.equal((await initializeOnce(running.url)).status, 200);
    } finally {
      await running.close();
    }
  });

  it('closes a keep-alive connection left idle after its answer once keepAliveTimeoutMs passes', async () => {
    const running = await listenNode(handler(), { keepAliveTimeoutMs: DEADLINE_MS });
    try {
      const connection = rawConnection(running.url, 10_000);
      const answered = new Promise<number>((resolve) => {
        connection.socket.on('data', () => {
          // The answer whole: one JSON body (a held reply, SPEC.md 9.6.2), or an event stream that ends with it.
          if (/"id":0/.test(connection.received()) && wholeReply(connection.received())) resolve(Date.now());
        });
      });
      connection.socket.write(`${postHead(running.url, INITIALIZE_BODY.length)}${INITIALIZE_BODY}`);
      const answeredAt = await answered;
      const openMs = await connection.closed;
      // Node's own default (5 s), which applied before the option, would keep it open past 4 s.
      assert.ok(openMs !== Infinity && Date.now() - answeredAt < 4_000, `connection open ${Date.now() - answeredAt} ms after its answer`);
    } finally {
      await running.close();
    }
  });

  it('drops a new connection when every connection at maxConnections has a request in flight, and serves again once they go', async () => {
    const running = await listenNode(handler(), { maxConnections: 2 });
    let requests = 0;
    running.server.on('request', () => requests++);
    // Two requests in flight: their bodies never finish. (Connections without one make room instead:
    // http-connection-cap.test.ts.)
    const held = [rawConnection(running.url, 10_000), rawConnection(running.url, 10_000)];
    try {
      for (const { socket } of held) socket.write(postHead(running.url, 100));
      // Both requests' headers in, so neither connection is waiting any more.
      await waitUntil(async () => requests === 2 && (await connectionsOf(running.server)) === 2, 'the two requests in flight');
      const extra = rawConnection(running.url, 3_000);
      assert.ok((await extra.closed) < 3_000, 'the third connection is dropped');
      assert.equal(extra.received(), '', 'unanswered');
      assert.ok(
        held.every(({ socket }) => !socket.destroyed && socket.readyState === 'open'),
        'the requests in flight keep their connections',
      );
      for (const { socket } of held) socket.destroy();
      await Promise.all(held.map(({ closed }) => closed));
      assert.equal((await initializeOnce(running.url)).status, 200);
    } finally {
      for (const { socket } of held) socket.destroy();
      await running.close();
    }
  });
});
