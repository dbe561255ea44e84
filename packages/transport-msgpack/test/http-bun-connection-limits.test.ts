// listenBun's connection limits (Bun only): Bun.serve's idleTimeout, set from idleTimeoutMs, closes an idle
// keep-alive connection, while a reply stream that writes (keep-alive frames) outlives it, since Bun.serve
// cuts writing streams at its idleTimeout (Bun 1.4.5) and listenBun exempts streams.
import assert from 'node:assert/strict';
import { connect as connectTcp } from 'node:net';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HttpMsgpackClientTransport, McpHttpHandler, listenBun } from 'mcp-msgpack-transport';
import { createHttpTestServer, isBun, textOf } from './fixtures/http-helpers.js';

const IDLE_MS = 1_000;

describe('listenBun connection limits', { timeout: 30_000, skip: isBun ? false : 'Bun.serve is Bun-only' }, () => {
  it('closes an idle keep-alive connection after idleTimeoutMs', async () => {
    const handler = new McpHttpHandler({ createServer: createHttpTestServer });
    const running = await listenBun(handler, { idleTimeoutMs: IDLE_MS });
    try {
      const socket = connectTcp(Number(running.url.port), '127.0.0.1');
      socket.on('error', () => {});
      const body = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      let answered = '';
      socket.on('data', (chunk) => (answered += chunk));
      const closed = new Promise<number>((resolve) => {
        const started = Date.now();
        socket.on('close', () => resolve(Date.now() - started));
        setTimeout(() => resolve(Infinity), 20_000);
      });
      socket.write(
        `POST ${running.url.pathname} HTTP/1.1\r\nHost: ${running.url.host}\r\nContent-Type: application/json\r\n` +
          `Accept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      const openFor = await closed;
      socket.destroy();
      assert.match(answered, /^HTTP\/1\.1 200/);
      // Bun checks its timeouts every few seconds: closed well before the default (60 s), never left open.
      assert.ok(openFor < 20_000, `an idle keep-alive connection stayed open ${openFor} ms`);
    } finally {
      await running.close();
    }
  });

  it('keeps a reply stream that writes open past idleTimeoutMs, to its end', async () => {
    const handler = new McpHttpHandler({ createServer: createHttpTestServer, keepAliveMs: IDLE_MS / 4 });
    const running = await listenBun(handler, { idleTimeoutMs: IDLE_MS });
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
