// A session serves ping and nothing else until its client sends notifications/initialized (SPEC.md 9.4):
// a request before it waits a moment for it (relays may reorder the two POSTs), then is refused with 400
// and the SDK transport's "not initialized" error, and no handler runs. The notification itself,
// responses, a batch that carries the notification first, and 2026-07-28 stateless requests (no session)
// pass.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer } from '@modelcontextprotocol/server';
import { Packr, Unpackr } from 'msgpackr';
import * as z from 'zod/v4';
import { McpHttpHandler, listenBun, listenNode } from 'mcp-msgpack-transport';
import { serverKinds, type ServerKind } from './fixtures/http-helpers.js';

const LIMIT = 20_000;
const packr = new Packr({ useRecords: false, variableMapSize: true });
const unpackr = new Unpackr({ useRecords: false });
type Wire = 'json' | 'msgpack';
type Reply = { status: number; body: Record<string, any> | undefined };

const INITIALIZE = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const echo = (id: number, text: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } });

/** A POST on either wire, replies as one body (enableJsonResponse), decoded. */
async function post(url: URL, wire: Wire, message: unknown, sessionId?: string): Promise<Reply & { sessionId: string | null }> {
  const headers: Record<string, string> =
    wire === 'msgpack'
      ? { 'content-type': 'application/msgpack', accept: 'application/msgpack, application/vnd.mcp-msgpack.stream' }
      : { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (sessionId) headers['mcp-session-id'] = sessionId;
  const body = wire === 'msgpack' ? new Uint8Array(packr.pack(message)) : JSON.stringify(message);
  const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const decoded = bytes.length === 0 ? undefined : response.headers.get('content-type') === 'application/msgpack' ? unpackr.unpack(bytes) : JSON.parse(new TextDecoder().decode(bytes));
  return { status: response.status, body: decoded, sessionId: response.headers.get('mcp-session-id') };
}

/** A handler whose servers count the tool calls that reached them. */
async function start(kind: ServerKind, initializedWaitMs = 0): Promise<{ url: URL; calls: () => number; close(): Promise<void> }> {
  let calls = 0;
  const handler = new McpHttpHandler({
    enableJsonResponse: true,
    initializedWaitMs,
    createServer: () => {
      const server = new McpServerV1({ name: 'readiness', version: '1.0.0' });
      server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => {
        calls++;
        return { content: [{ type: 'text', text }] };
      });
      return server;
    },
  });
  const running = kind === 'Bun.serve' ? await listenBun(handler) : await listenNode(handler);
  return { url: running.url, calls: () => calls, close: () => running.close() };
}

function assertNotReady(reply: Reply, id: number): void {
  assert.equal(reply.status, 400);
  assert.equal(reply.body?.id, id);
  assert.equal(reply.body?.error?.code, -32000);
  assert.match(reply.body?.error?.message, /^Bad Request: Server not initialized/);
  assert.equal(reply.body?.error?.data?.reason, 'not-initialized');
}

for (const kind of serverKinds) {
  describe(`HTTP requests before notifications/initialized (${kind})`, { timeout: LIMIT }, () => {
    for (const wire of ['json', 'msgpack'] as const) {
      it(`refuses tools/call and tools/list before it, answers ping, serves everything after it (${wire})`, async () => {
        const server = await start(kind);
        try {
          const init = await post(server.url, wire, INITIALIZE);
          assert.equal(init.status, 200);
          const sessionId = init.sessionId!;
          assert.ok(sessionId);
          assertNotReady(await post(server.url, wire, echo(1, 'too early'), sessionId), 1);
          assertNotReady(await post(server.url, wire, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, sessionId), 2);
          assert.equal(server.calls(), 0, 'no tool handler may run before the session is initialized');
          const ping = await post(server.url, wire, { jsonrpc: '2.0', id: 3, method: 'ping' }, sessionId);
          assert.equal(ping.status, 200);
          assert.deepEqual(ping.body?.result, {});
          // The refusals did not end the session: it initializes and serves as usual.
          assert.equal((await post(server.url, wire, INITIALIZED, sessionId)).status, 202);
          const call = await post(server.url, wire, echo(4, 'in time'), sessionId);
          assert.equal(call.status, 200);
          assert.equal(call.body?.result?.content?.[0]?.text, 'in time');
          assert.equal(server.calls(), 1);
        } finally {
          await server.close();
        }
      });
    }

    it('a request that overtakes the notification (a relay forwarding without waiting) waits for it and is served', async () => {
      const server = await start(kind, 10_000);
      try {
        const sessionId = (await post(server.url, 'json', INITIALIZE)).sessionId!;
        const early = post(server.url, 'json', echo(1, 'overtook'), sessionId);
        // Let the request reach the server and start waiting before the notification is sent.
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.equal(server.calls(), 0);
        assert.equal((await post(server.url, 'json', INITIALIZED, sessionId)).status, 202);
        const reply = await early;
        assert.equal(reply.status, 200);
        assert.equal(reply.body?.result?.content?.[0]?.text, 'overtook');
        assert.equal(server.calls(), 1);
      } finally {
        await server.close();
      }
    });

    it('a request waiting for the notification when the session ends gets 404, not the not-initialized refusal', async () => {
      const server = await start(kind, 10_000);
      try {
        const sessionId = (await post(server.url, 'json', INITIALIZE)).sessionId!;
        const early = post(server.url, 'json', echo(1, 'waits'), sessionId);
        await new Promise((resolve) => setTimeout(resolve, 200));
        const ended = await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId }, signal: AbortSignal.timeout(10_000) });
        assert.equal(ended.status, 200);
        const reply = await early;
        assert.equal(reply.status, 404);
        assert.equal(server.calls(), 0);
      } finally {
        await server.close();
      }
    });

    it('at most 8 requests of a session wait for the notification: the 9th is refused at once, the 8 are served after it', async () => {
      const server = await start(kind, 15_000);
      try {
        const sessionId = (await post(server.url, 'msgpack', INITIALIZE)).sessionId!;
        const replies = Array.from({ length: 9 }, (_, i) => post(server.url, 'msgpack', echo(10 + i, `early ${i}`), sessionId));
        // Only a refusal can settle before the notification: it comes once 8 are waiting.
        const refused = await Promise.race(replies.map((reply, i) => reply.then((r) => ({ r, i }))));
        assertNotReady(refused.r, 10 + refused.i);
        assert.equal((await post(server.url, 'msgpack', INITIALIZED, sessionId)).status, 202);
        const served = (await Promise.all(replies)).filter((_, i) => i !== refused.i);
        assert.equal(served.length, 8);
        for (const reply of served) assert.equal(reply.status, 200, JSON.stringify(reply.body));
        assert.equal(server.calls(), 8);
      } finally {
        await server.close();
      }
    });

    it('two requests with one id waiting for the notification: once it comes, one is served and the other gets duplicate-id', async () => {
      // Both wake in the same tick: the duplicate check must see the first one's id before the second is let in
      // (it used to run before the first was bound to its reply, so both went on and one was never answered).
      const server = await start(kind, 10_000);
      try {
        const sessionId = (await post(server.url, 'json', INITIALIZE)).sessionId!;
        const twins = [post(server.url, 'json', echo(7, 'twin a'), sessionId), post(server.url, 'json', echo(7, 'twin b'), sessionId)];
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.equal((await post(server.url, 'json', INITIALIZED, sessionId)).status, 202);
        const replies = await Promise.all(twins);
        const served = replies.filter((reply) => reply.status === 200);
        const refused = replies.filter((reply) => reply.status === 400);
        assert.equal(served.length, 1, JSON.stringify(replies));
        assert.match(served[0]!.body?.result?.content?.[0]?.text, /^twin [ab]$/);
        assert.equal(refused.length, 1, JSON.stringify(replies));
        assert.equal(refused[0]!.body?.error?.code, -32600);
        assert.equal(refused[0]!.body?.error?.data?.reason, 'duplicate-id');
        assert.equal(refused[0]!.body?.id, 7);
        assert.equal(server.calls(), 1);
      } finally {
        await server.close();
      }
    });

    it('a request waits only initializedWaitMs for the notification, then is refused; the session goes on', async () => {
      const server = await start(kind, 300);
      try {
        const sessionId = (await post(server.url, 'json', INITIALIZE)).sessionId!;
        assertNotReady(await post(server.url, 'json', echo(1, 'never initialized'), sessionId), 1);
        assert.equal(server.calls(), 0);
        assert.equal((await post(server.url, 'json', INITIALIZED, sessionId)).status, 202);
        assert.equal((await post(server.url, 'json', echo(2, 'now'), sessionId)).body?.result?.content?.[0]?.text, 'now');
      } finally {
        await server.close();
      }
    });

    it('a batch that carries notifications/initialized before its requests is served; one with a request first is refused', async () => {
      const server = await start(kind);
      try {
        const early = (await post(server.url, 'json', INITIALIZE)).sessionId!;
        assertNotReady(await post(server.url, 'json', [echo(1, 'first'), INITIALIZED], early), 1);
        assert.equal(server.calls(), 0);
        const batched = (await post(server.url, 'json', INITIALIZE)).sessionId!;
        const reply = await post(server.url, 'json', [INITIALIZED, echo(2, 'after')], batched);
        assert.equal(reply.status, 200);
        // One reply for the batch's one request (the SDK sends it alone, not in an array).
        const replies = [reply.body].flat() as Record<string, any>[];
        assert.equal(replies.length, 1);
        assert.equal(replies[0]?.result?.content?.[0]?.text, 'after');
        // The batch's notification counts: the next POST is served too.
        assert.equal((await post(server.url, 'json', echo(3, 'next'), batched)).body?.result?.content?.[0]?.text, 'next');
      } finally {
        await server.close();
      }
    });

    it('a 2026-07-28 request needs no session and is not affected', async () => {
      const handler = new McpHttpHandler({
        enableJsonResponse: true,
        createServer: () => {
          const server = new McpServer({ name: 'modern', version: '1.0.0' });
          server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
          return server;
        },
      });
      const running = kind === 'Bun.serve' ? await listenBun(handler) : await listenNode(handler);
      try {
        const _meta = {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        };
        const response = await fetch(running.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'stateless' }, _meta } }),
          signal: AbortSignal.timeout(10_000),
        });
        assert.equal(response.status, 200);
        assert.match(await response.text(), /stateless/);
      } finally {
        await running.close();
      }
    });
  });
}
