// listenNode's connection limits: a connection that sends nothing is closed once it has been idle too long,
// one that sends its headers a byte at a time once its header deadline passes; past maxConnections new ones are dropped; normal use goes on.
import assert from 'node:assert/strict';
import { connect as connectTcp, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { McpHttpHandler, listenNode } from 'mcp-msgpack-transport';
import { createHttpTestServer } from './fixtures/http-helpers.js';

const DEADLINE_MS = 400;

/** Resolves with how long the socket stayed open (it is destroyed after `giveUpMs`, resolving Infinity). */
function openFor(socket: Socket, giveUpMs: number): Promise<number> {
  const started = Date.now();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(Infinity);
    }, giveUpMs);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
    socket.on('error', () => {});
  });
}

async function ping(url: URL): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  await response.text();
  return response.status;
}

describe('listenNode connection limits', { timeout: 20_000 }, () => {
  it('closes a silent connection at the idle deadline and a byte-at-a-time one at the header deadline, and still serves', async () => {
    const handler = new McpHttpHandler({ createServer: createHttpTestServer });
    const running = await listenNode(handler, { headersTimeoutMs: DEADLINE_MS, requestTimeoutMs: 2 * DEADLINE_MS, idleTimeoutMs: 2 * DEADLINE_MS });
    try {
      const port = Number(running.url.port);
      const silent = connectTcp(port, '127.0.0.1');
      const slow = connectTcp(port, '127.0.0.1');
      const request = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`;
      let sent = 0;
      const drip = setInterval(() => {
        if (sent < request.length && !slow.destroyed) slow.write(request[sent++]!);
      }, 50);
      const [silentFor, slowFor] = await Promise.all([openFor(silent, 10_000), openFor(slow, 10_000)]);
      clearInterval(drip);
      // Closed after the deadline and the checking interval (1 s), never left open.
      assert.ok(silentFor >= DEADLINE_MS && silentFor < 5_000, `silent connection open for ${silentFor} ms`);
      assert.ok(slowFor >= DEADLINE_MS && slowFor < 5_000, `slow connection open for ${slowFor} ms`);
      assert.equal(await ping(running.url), 200);
    } finally {
      await running.close();
    }
  });

  it('closes a keep-alive connection left idle after its answer once keepAliveTimeoutMs passes', async () => {
    const handler = new McpHttpHandler({ createServer: createHttpTestServer });
    const running = await listenNode(handler, { keepAliveTimeoutMs: DEADLINE_MS });
    try {
      const port = Number(running.url.port);
      const socket = connectTcp(port, '127.0.0.1');
      const body = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      const answered = new Promise<number>((resolve) => {
        let text = '';
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('latin1');
          // One JSON body (enableJsonResponse is off: an event stream that ends with the answer).
          if (/"id":0/.test(text) && /\r\n0\r\n\r\n$/.test(text)) resolve(Date.now());
        });
      });
      socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
      const closed = openFor(socket, 10_000);
      const answeredAt = await answered;
      const openMs = await closed;
      // Node's own default (5 s), which applied before the option, would keep it open past 4 s.
      assert.ok(openMs !== Infinity && Date.now() - answeredAt < 4_000, `connection open ${Date.now() - answeredAt} ms after its answer`);
    } finally {
      await running.close();
    }
  });

  it('drops connections past maxConnections and serves again once they go', async () => {
    const handler = new McpHttpHandler({ createServer: createHttpTestServer });
    const running = await listenNode(handler, { maxConnections: 2 });
    try {
      const port = Number(running.url.port);
      const held = [connectTcp(port, '127.0.0.1'), connectTcp(port, '127.0.0.1')];
      await Promise.all(held.map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const extra = connectTcp(port, '127.0.0.1');
      assert.ok((await openFor(extra, 3_000)) < 3_000, 'the third connection is dropped');
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(await ping(running.url), 200);
    } finally {
      await running.close();
    }
  });
});
