// McpHttpHandler's session hooks: onsessioninitialized and onsessionclosed are options of its type, and
// onsessionclosed is called once for every way a session ends (DELETE, idle or initialization expiry, the
// server closing it, the handler's close), which is where per-session cleanup goes (server-everything's
// cleanup(sessionId)). Requests of the modern revision have no session and call neither hook.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/server';
import { McpHttpHandler, type McpHttpHandlerOptions } from 'mcp-msgpack-transport';
import { waitUntil } from './fixtures/http-helpers.js';
import { modernToolCall } from './fixtures/modern-request.js';

const LIMIT = 20_000;
const URL_ = 'http://127.0.0.1/mcp';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: '127.0.0.1' };
const INITIALIZE = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'hooks', version: '1' } } };

/** Servers made so far, and how many of them the handler has closed. */
interface Made extends Array<McpServer> {
  closed?: number;
}

function makeServer(servers: Made = []): McpServer {
  const server = new McpServer({ name: 'hooks', version: '1' });
  server.registerTool('whoami', {}, async () => ({ content: [{ type: 'text', text: 'me' }] }));
  const close = server.close.bind(server);
  server.close = async () => {
    servers.closed = (servers.closed ?? 0) + 1;
    await close();
  };
  servers.push(server);
  return server;
}

/** The handler, with every hook call recorded in order (with the events the test adds). */
function hooked(options: Partial<McpHttpHandlerOptions> = {}, servers: Made = []): { handler: McpHttpHandler; events: string[] } {
  const events: string[] = [];
  // Typed as the options: before the hooks were in McpHttpHandlerOptions, this object did not compile.
  const hooks: McpHttpHandlerOptions = {
    createServer: () => makeServer(servers) as never,
    enableJsonResponse: true,
    onsessioninitialized: (id, server) => {
      assert.ok(servers.includes(server as McpServer), "the session's own server");
      events.push(`initialized ${id}`);
    },
    onsessionclosed: async (id, server) => {
      assert.ok(servers.includes(server as McpServer), "the session's own server");
      await new Promise((resolve) => setTimeout(resolve, 10));
      events.push(`closed ${id}`);
    },
    ...options,
  };
  return { handler: new McpHttpHandler(hooks), events };
}

async function post(handler: McpHttpHandler, body: unknown, sessionId?: string): Promise<Response> {
  const headers: Record<string, string> = { ...HEADERS, ...(sessionId && { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }) };
  const response = await handler.handle(new Request(URL_, { method: 'POST', headers, body: JSON.stringify(body) }));
  await response.arrayBuffer();
  return response;
}

async function openSession(handler: McpHttpHandler, initialized = true): Promise<string> {
  const init = await post(handler, INITIALIZE);
  assert.equal(init.status, 200);
  const id = init.headers.get('mcp-session-id');
  assert.ok(id);
  if (initialized) assert.equal((await post(handler, { jsonrpc: '2.0', method: 'notifications/initialized' }, id)).status, 202);
  return id;
}

describe('McpHttpHandler session hooks', { timeout: LIMIT }, () => {
  it('DELETE: onsessioninitialized at initialize, onsessionclosed once, awaited before the 200', async () => {
    const { handler, events } = hooked();
    try {
      const id = await openSession(handler);
      assert.deepEqual(events, [`initialized ${id}`]);
      const deleted = await handler.handle(new Request(URL_, { method: 'DELETE', headers: { ...HEADERS, 'mcp-session-id': id } }));
      events.push(`DELETE ${deleted.status}`);
      assert.deepEqual(events, [`initialized ${id}`, `closed ${id}`, 'DELETE 200']);
      await handler.close();
      assert.deepEqual(events, [`initialized ${id}`, `closed ${id}`, 'DELETE 200']);
    } finally {
      await handler.close();
    }
  });

  it('idle expiry and an initialization never finished each end the session once, with the hook', async () => {
    const { handler, events } = hooked({ sessionIdleTimeoutMs: 200, sessionInitTimeoutMs: 200 });
    try {
      const idle = await openSession(handler);
      const abandoned = await openSession(handler, false);
      await waitUntil(() => events.filter((event) => event.startsWith('closed')).length === 2, 'both sessions to end');
      assert.equal(handler.sessionCount, 0);
      assert.deepEqual(events.filter((event) => event.startsWith('closed')).sort(), [`closed ${abandoned}`, `closed ${idle}`].sort());
    } finally {
      await handler.close();
    }
  });

  it("the server closing its session, and the handler's close(), call it once per session", async () => {
    const servers: Made = [];
    const { handler, events } = hooked({}, servers);
    try {
      const first = await openSession(handler);
      const second = await openSession(handler);
      await servers[0]!.close();
      await waitUntil(() => events.includes(`closed ${first}`), 'the first session to end');
      assert.equal(handler.sessionCount, 1);
      await handler.close();
      assert.deepEqual(
        events.filter((event) => event.startsWith('closed')),
        [`closed ${first}`, `closed ${second}`],
      );
    } finally {
      await handler.close();
    }
  });

  it("a request of the modern revision (2026-07-28) calls neither hook (its server's close is its end); sessions beside it still do", async () => {
    const servers: Made = [];
    const { handler, events } = hooked({ reuseServers: false }, servers);
    try {
      const reply = await handler.handle(modernToolCall(1, 'whoami'));
      assert.equal(reply.status, 200);
      assert.match(await reply.text(), /"me"/);
      await waitUntil(() => servers.closed === 1, "the request's server to close");
      assert.deepEqual(events, []);
      const id = await openSession(handler);
      await handler.close();
      assert.deepEqual(events, [`initialized ${id}`, `closed ${id}`]);
    } finally {
      await handler.close();
    }
  });
});
