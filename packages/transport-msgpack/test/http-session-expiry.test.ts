// Idle-session expiry in McpHttpHandler: a session nobody uses is closed (transport and server) and its id
// answers 404, while a session with a request in flight, an open GET stream or regular use lives on.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect as connectTcp } from 'node:net';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HttpMsgpackClientTransport, McpHttpHandler, type McpHttpHandlerOptions } from 'mcp-msgpack-transport';
import { createHttpTestServer, rawStatusOn, serverKinds, startTestServer, textOf, waitUntil, type ServerKind, type TestHttpServer } from './fixtures/http-helpers.js';
import { fixture } from './fixtures/stdio-helpers.js';

const LIMIT = 20_000;
/** Short enough to run quickly; every wait below is a multiple of it, never a bound on speed. */
const IDLE_MS = 300;
const JSON_ACCEPT = 'application/json, text/event-stream';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface WatchedServer extends TestHttpServer {
  /** How many of the handler's McpServers have seen their onclose. */
  closedServers(): number;
}

async function startWatched(kind: ServerKind, options: Partial<McpHttpHandlerOptions> = {}): Promise<WatchedServer> {
  let closed = 0;
  const server = await startTestServer(kind, {
    sessionIdleTimeoutMs: IDLE_MS,
    ...options,
    createServer: () => {
      const mcp = createHttpTestServer();
      mcp.server.onclose = () => void closed++;
      return mcp;
    },
  });
  return { ...server, closedServers: () => closed };
}

function postJson(url: URL, sessionId: string | undefined, message: unknown): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: JSON_ACCEPT };
  if (sessionId) headers['mcp-session-id'] = sessionId;
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(message), signal: AbortSignal.timeout(10_000) });
}

/** A session opened by hand: initialized, and no GET stream. */
async function openRawSession(url: URL): Promise<string> {
  const init = await postJson(url, undefined, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  assert.equal(init.status, 200);
  const sessionId = init.headers.get('mcp-session-id');
  assert.ok(sessionId);
  await init.text();
  const initialized = await postJson(url, sessionId, { jsonrpc: '2.0', method: 'notifications/initialized' });
  assert.equal(initialized.status, 202);
  return sessionId;
}

async function ping(url: URL, sessionId: string): Promise<number> {
  const response = await postJson(url, sessionId, { jsonrpc: '2.0', id: 1, method: 'ping' });
  await response.text();
  return response.status;
}

async function connectClient(url: URL, fetchFn?: typeof fetch): Promise<{ client: Client; transport: HttpMsgpackClientTransport }> {
  const transport = new HttpMsgpackClientTransport(url, fetchFn ? { fetch: fetchFn } : {});
  const client = new Client({ name: 'expiry-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** A client that never gets a GET stream (the server "answers" 405, as one without it would). */
const fetchWithoutGetStream: typeof fetch = (input, init) => (init?.method === 'GET' ? Promise.resolve(new Response(null, { status: 405 })) : fetch(input, init));

for (const kind of serverKinds) {
  describe(`HTTP session expiry (${kind})`, { timeout: LIMIT }, () => {
    it('closes a session idle past the timeout: the McpServer closes, its id gets 404 -32001, a new session works', async () => {
      const server = await startWatched(kind);
      try {
        const { client, transport } = await connectClient(server.url, fetchWithoutGetStream);
        const sessionId = transport.sessionId!;
        assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'before' } })), 'before');
        assert.equal(server.handler.sessionCount, 1);

        await waitUntil(() => server.handler.sessionCount === 0, 'the idle session to expire');
        await waitUntil(() => server.closedServers() === 1, "the session's McpServer to close");

        // The client's next call learns the session is gone, as MCP specifies (it must re-initialize).
        await assert.rejects(client.callTool({ name: 'echo', arguments: { text: 'after' } }), (error: unknown) => {
          assert.ok(error instanceof StreamableHTTPError);
          assert.equal(error.code, 404);
          assert.match(error.message, /Session not found/);
          return true;
        });
        await client.close();

        const post = await postJson(server.url, sessionId, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
        assert.equal(post.status, 404);
        assert.deepEqual((await post.json()).error, { code: -32001, message: 'Session not found' });
        const get = await fetch(server.url, { headers: { accept: JSON_ACCEPT, 'mcp-session-id': sessionId } });
        assert.equal(get.status, 404);
        await get.body?.cancel();

        const again = await connectClient(server.url, fetchWithoutGetStream);
        assert.notEqual(again.transport.sessionId, sessionId);
        assert.equal(textOf(await again.client.callTool({ name: 'echo', arguments: { text: 'new' } })), 'new');
        await again.client.close();
      } finally {
        await server.close();
      }
    });

    it('keeps a session whose GET stream is open, and expires it once its client is gone without DELETE', async () => {
      const server = await startWatched(kind);
      try {
        const { client } = await connectClient(server.url);
        await waitUntil(() => server.handler.openStreamCount === 1, 'the GET stream to open');
        await sleep(4 * IDLE_MS);
        assert.equal(server.handler.sessionCount, 1);
        assert.equal(server.closedServers(), 0);
        assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'alive' } })), 'alive');

        // A client that closes without terminateSession() is a crashed client, as far as the server knows.
        await client.close();
        await waitUntil(() => server.handler.sessionCount === 0, 'the abandoned session to expire');
        await waitUntil(() => server.closedServers() === 1, "the session's McpServer to close");
      } finally {
        await server.close();
      }
    });

    it('keeps a session that is used more often than the timeout', async () => {
      const server = await startWatched(kind);
      try {
        const sessionId = await openRawSession(server.url);
        const until = Date.now() + 4 * IDLE_MS;
        let pings = 0;
        // The checks below follow a ping at once: a sleep that a loaded machine stretched past the timeout
        // after the last ping would expire the session for a reason this test is not about.
        while (Date.now() < until) {
          await sleep(IDLE_MS / 5);
          assert.equal(await ping(server.url, sessionId), 200);
          pings++;
        }
        assert.ok(pings >= 4);
        assert.equal(server.handler.sessionCount, 1);
        assert.equal(server.closedServers(), 0);
      } finally {
        await server.close();
      }
    });

    for (const enableJsonResponse of [false, true]) {
      it(`keeps a session while a request runs longer than the timeout (${enableJsonResponse ? 'single JSON reply' : 'reply stream'})`, async () => {
        const server = await startWatched(kind, { enableJsonResponse });
        try {
          const sessionId = await openRawSession(server.url);
          const call = await postJson(server.url, sessionId, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'slow', arguments: { ms: 3 * IDLE_MS } } });
          assert.equal(call.status, 200);
          assert.match(await call.text(), /"slept"/);
          assert.equal(server.handler.sessionCount, 1);
          assert.equal(server.closedServers(), 0);
          assert.equal(await ping(server.url, sessionId), 200);
        } finally {
          await server.close();
        }
      });
    }
  });
}

describe('HTTP session expiry: settings and process lifetime', { timeout: LIMIT }, () => {
  for (const off of [0, Infinity]) {
    it(`sessionIdleTimeoutMs ${off} never expires a session`, async () => {
      const server = await startWatched('node:http', { sessionIdleTimeoutMs: off });
      try {
        const sessionId = await openRawSession(server.url);
        await sleep(3 * IDLE_MS);
        assert.equal(server.handler.sessionCount, 1);
        assert.equal(server.closedServers(), 0);
        assert.equal(await ping(server.url, sessionId), 200);
      } finally {
        await server.close();
      }
      // Closing the handler still closes the session's server.
      assert.equal(server.closedServers(), 1);
    });
  }

  it('refuses a negative or NaN timeout', () => {
    for (const bad of [-1, Number.NaN]) {
      assert.throws(() => new McpHttpHandler({ createServer: createHttpTestServer, sessionIdleTimeoutMs: bad }), RangeError);
    }
  });

  it('never keeps the process alive: a process holding an open session exits by itself', async () => {
    const child = spawn(process.execPath, [fixture('idle-session-child')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (c, s) => resolve([c, s])));
    clearTimeout(killer);
    assert.equal(signal, null, `the child had to be killed (it did not exit by itself); stderr: ${stderr}`);
    assert.equal(code, 0, stderr);
    assert.equal(stdout.trim(), 'status=200 sessions=1');
  });
});

for (const kind of serverKinds) {
  describe(`HTTP session cap and initialization deadline (${kind})`, { timeout: LIMIT }, () => {
    const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

    it('past maxSessions an initialize gets 503 with Retry-After; open sessions go on, and a closed one frees its place', async () => {
      const server = await startWatched(kind, { maxSessions: 2 });
      try {
        const first = await openRawSession(server.url);
        await openRawSession(server.url);
        const refused = await postJson(server.url, undefined, initialize);
        assert.equal(refused.status, 503);
        assert.equal(refused.headers.get('retry-after'), '5');
        const { error } = (await refused.json()) as { error: { code: number; data?: { reason?: string } } };
        assert.equal(error.code, -32000);
        assert.equal(error.data?.reason, 'too-many-sessions');
        assert.equal(server.handler.sessionCount, 2);
        const call = await postJson(server.url, first, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'still here' } } });
        assert.match(await call.text(), /still here/);
        const ended = await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': first } });
        assert.equal(ended.status, 200);
        await openRawSession(server.url);
      } finally {
        await server.close();
      }
    });

    it('initializes sent at once, some with their bodies held back, open no more sessions than maxSessions', async () => {
      // The cap counts sessions still being opened: it used to count only those whose initialize was done,
      // so every initialize that passed the check before another finished (a body sent slowly, say) got in.
      const server = await startWatched(kind, { maxSessions: 2, sessionIdleTimeoutMs: 0 });
      try {
        const body = JSON.stringify(initialize);
        const held = Array.from({ length: 4 }, () => connectTcp(Number(server.url.port), server.url.hostname));
        const heldStatuses = held.map((socket) => rawStatusOn(socket, 10_000));
        for (const socket of held) {
          socket.write(
            `POST ${server.url.pathname} HTTP/1.1\r\nHost: ${server.url.host}\r\ncontent-type: application/json\r\naccept: ${JSON_ACCEPT}\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`,
          );
        }
        await sleep(200);
        const sent = await Promise.all(Array.from({ length: 6 }, () => postJson(server.url, undefined, initialize)));
        for (const socket of held) socket.write(body);
        const statuses = [...sent.map((response) => response.status), ...(await Promise.all(heldStatuses))];
        await Promise.all(sent.map((response) => response.text()));
        assert.equal(statuses.filter((status) => status === 200).length, 2, statuses.join(' '));
        assert.equal(statuses.filter((status) => status === 503).length, 8, statuses.join(' '));
        assert.equal(server.handler.sessionCount, 2);
      } finally {
        await server.close();
      }
    });

    it('a session that never sends notifications/initialized is closed after sessionInitTimeoutMs; an initialized one lives on', async () => {
      const server = await startWatched(kind, { sessionInitTimeoutMs: IDLE_MS, sessionIdleTimeoutMs: 0 });
      try {
        const init = await postJson(server.url, undefined, initialize);
        const abandoned = init.headers.get('mcp-session-id')!;
        await init.text();
        const kept = await openRawSession(server.url);
        await waitUntil(() => server.handler.sessionCount === 1, 'the abandoned session to close', 10 * IDLE_MS);
        await waitUntil(() => server.closedServers() === 1, 'its server to close', 10 * IDLE_MS);
        const gone = await postJson(server.url, abandoned, { jsonrpc: '2.0', id: 1, method: 'ping' });
        assert.equal(gone.status, 404);
        await gone.text();
        await sleep(2 * IDLE_MS);
        const alive = await postJson(server.url, kept, { jsonrpc: '2.0', id: 2, method: 'ping' });
        assert.equal(alive.status, 200);
        await alive.text();
      } finally {
        await server.close();
      }
    });
  });
}
