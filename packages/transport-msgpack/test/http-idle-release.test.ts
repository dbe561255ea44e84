// McpHttpHandler's idleRelease: once nothing has been in flight for afterMs, the handler closes the
// 2026-07-28 servers it keeps for reuse and (when asked) runs a full garbage collection; never while a
// request is being handled or a stream is open; and a call after the release works (it makes a server
// again). Waits are multiples of the period, never bounds on speed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { McpHttpHandler, NativeBytesPool, type McpHttpHandlerOptions } from 'mcp-msgpack-transport';
import { serverKinds, startTestServer, waitUntil } from './fixtures/http-helpers.js';
import { modernToolCall } from './fixtures/modern-request.js';

const LIMIT = 20_000;
const AFTER_MS = 150;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** v2 servers whose `wait` tool answers only once `open()` is called; counts the instances made. */
function gatedFactory(): { make: () => McpServer; made: () => number; open: () => void } {
  let made = 0;
  let open!: () => void;
  let gate = new Promise<void>((resolve) => (open = resolve));
  const make = () => {
    made++;
    const server = new McpServer({ name: 'v2-server', version: '1.0.0' });
    server.registerTool('wait', { inputSchema: z.object({}) }, async () => {
      await gate;
      return { content: [{ type: 'text', text: 'done' }] };
    });
    return server;
  };
  return {
    make,
    made: () => made,
    open: () => {
      open();
      gate = Promise.resolve();
    },
  };
}

const modernCall = (id: number) => modernToolCall(id, 'wait');

function handlerWith(factory: ReturnType<typeof gatedFactory>, idleRelease: McpHttpHandlerOptions['idleRelease']): McpHttpHandler {
  return new McpHttpHandler({ createServer: factory.make as never, enableJsonResponse: true, idleRelease });
}

describe('McpHttpHandler idleRelease', { timeout: LIMIT }, () => {
  it('closes the servers kept for reuse and collects once idle for afterMs; a call after it makes a server again', async () => {
    const factory = gatedFactory();
    factory.open();
    let collections = 0;
    const handler = handlerWith(factory, { afterMs: AFTER_MS, collectGarbage: () => void collections++ });
    try {
      assert.match(await (await handler.handle(modernCall(1))).text(), /done/);
      assert.equal(handler.idleServerCount, 1);
      await waitUntil(() => handler.idleReleaseCount === 1, 'the idle release');
      assert.equal(handler.idleServerCount, 0);
      assert.equal(collections, 1);
      // Once per idle period: nothing more happens while the handler stays idle.
      await sleep(AFTER_MS * 4);
      assert.equal(handler.idleReleaseCount, 1);
      assert.equal(collections, 1);
      assert.match(await (await handler.handle(modernCall(2))).text(), /done/);
      assert.equal(factory.made(), 2);
      await waitUntil(() => handler.idleReleaseCount === 2, 'the second idle release');
      assert.equal(collections, 2);
    } finally {
      await handler.close();
    }
  });

  it('idleRelease false keeps the servers kept for reuse', async () => {
    const factory = gatedFactory();
    factory.open();
    const handler = handlerWith(factory, false);
    try {
      await (await handler.handle(modernCall(1))).text();
      await sleep(AFTER_MS * 4);
      assert.equal(handler.idleServerCount, 1);
      assert.equal(handler.idleReleaseCount, 0);
    } finally {
      await handler.close();
    }
  });

  it('does not release while a request is in flight, and releases after it ends', async () => {
    const factory = gatedFactory();
    let collections = 0;
    const handler = handlerWith(factory, { afterMs: AFTER_MS, collectGarbage: () => void collections++ });
    try {
      const pending = handler.handle(modernCall(1));
      await sleep(AFTER_MS * 5);
      assert.equal(handler.idleReleaseCount, 0);
      assert.equal(collections, 0);
      factory.open();
      assert.match(await (await pending).text(), /done/);
      await waitUntil(() => handler.idleReleaseCount === 1, 'the idle release after the request');
      assert.equal(collections, 1);
    } finally {
      await handler.close();
    }
  });

  for (const kind of serverKinds) {
    it(`does not release while a session's stream is open (${kind})`, async () => {
      let collections = 0;
      const server = await startTestServer(kind, { idleRelease: { afterMs: AFTER_MS, collectGarbage: () => void collections++ } });
      const controller = new AbortController();
      try {
        const post = (body: unknown, sessionId?: string) =>
          fetch(server.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
            body: JSON.stringify(body),
          });
        const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
        const sessionId = init.headers.get('mcp-session-id')!;
        await init.text();
        await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)).text();
        const stream = await fetch(server.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId }, signal: controller.signal });
        assert.equal(stream.status, 200);
        // Read as a client does (Bun's node:http ends a stream nobody reads after about half a second).
        const reader = stream.body!.getReader();
        const reading = (async () => {
          while (!(await reader.read()).done);
        })().catch(() => {});
        await waitUntil(() => server.handler.openStreamCount === 1, 'the GET stream to open');
        // A release may have come before the stream opened (a slow machine's gap between requests): none after.
        const released = server.handler.idleReleaseCount;
        const collected = collections;
        await sleep(AFTER_MS * 5);
        assert.equal(server.handler.idleReleaseCount, released);
        assert.equal(collections, collected);
        controller.abort();
        await reading;
        await waitUntil(() => server.handler.openStreamCount === 0, 'the GET stream to close');
        await waitUntil(() => server.handler.idleReleaseCount === released + 1, 'the idle release after the stream');
        assert.equal(collections, collected + 1);
        // The session itself is not touched: it still answers.
        const ping = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, sessionId);
        assert.equal(ping.status, 200);
        await ping.text();
      } finally {
        controller.abort();
        await server.close();
      }
    });
  }

  it('a session that ends without a request (initialization deadline) starts the idle period again: a second release follows', async () => {
    let collections = 0;
    const server = await startTestServer('node:http', { sessionInitTimeoutMs: AFTER_MS * 6, idleRelease: { afterMs: AFTER_MS, collectGarbage: () => void collections++ } });
    try {
      const init = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
      });
      await init.text();
      assert.equal(server.handler.sessionCount, 1);
      // No notifications/initialized: the session is closed at its deadline, with no request since.
      await waitUntil(() => server.handler.sessionCount === 0, 'the initialization deadline');
      await waitUntil(() => server.handler.idleReleaseCount === 2, 'a release after the session ended');
      assert.equal(collections, 2);
    } finally {
      await server.close();
    }
  });

  it("collectGarbage: true uses the engine's collection, and says what is missing where there is none", async () => {
    const factory = gatedFactory();
    factory.open();
    const exposed = typeof (globalThis as { gc?: unknown }).gc === 'function' || typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';
    if (!exposed) {
      assert.throws(() => handlerWith(factory, { collectGarbage: true }), /--expose-gc/);
      return;
    }
    const handler = handlerWith(factory, { afterMs: AFTER_MS, collectGarbage: true });
    try {
      await (await handler.handle(modernCall(1))).text();
      await waitUntil(() => handler.idleReleaseCount === 1, 'the idle release with the engine collection');
      assert.match(await (await handler.handle(modernCall(2))).text(), /done/);
    } finally {
      await handler.close();
    }
  });

  it('refuses an afterMs that is not a positive duration', () => {
    assert.throws(() => handlerWith(gatedFactory(), { afterMs: 0 }), RangeError);
    assert.throws(() => handlerWith(gatedFactory(), { afterMs: -1 }), RangeError);
  });
});

describe('NativeBytesPool.dropFree', () => {
  it('drops the free buffers at once; a buffer lent out still comes back', () => {
    const pool = new NativeBytesPool({ minPooledBytes: 1024 });
    const first = pool.acquire(4096);
    const second = pool.acquire(4096);
    pool.release(first);
    assert.equal(pool.retainedBytes, 4096);
    pool.dropFree();
    assert.equal(pool.retainedBytes, 0);
    pool.release(second);
    assert.equal(pool.retainedBytes, 4096);
  });
});
