// Sessions bound to whoever initialized them (issue 32, item 3): a request, GET stream or DELETE made under
// another principal (another authInfo, or none) is answered 404 "Session not found", as an unknown session
// is, on the endpoint (McpHttpHandler) and on a transport used on its own; the owner's session goes on.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpHttpHandler, WebHttpMsgpackServerTransport, defaultSessionPrincipal, type AuthInfo, type McpHttpHandlerOptions } from 'mcp-msgpack-transport';

const URL_ = 'http://127.0.0.1/mcp';
const JSON_HEADERS = { host: '127.0.0.1', 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
const listTools = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });

const alice: AuthInfo = { token: 'a-1', clientId: 'desktop', scopes: [], extra: { sub: 'alice' } };
const aliceRefreshed: AuthInfo = { ...alice, token: 'a-2' };
const bob: AuthInfo = { token: 'b-1', clientId: 'desktop', scopes: [], extra: { sub: 'bob' } };

function makeServer(): McpServer {
  const server = new McpServer({ name: 'bound', version: '1' });
  server.registerTool('hello', { description: 'says hello' }, async () => ({ content: [{ type: 'text', text: 'hello' }] }));
  return server;
}

type Handle = (req: Request, authInfo: AuthInfo | undefined) => Promise<Response>;

function request(method: string, body: unknown, sessionId?: string): Request {
  const headers: Record<string, string> = { ...JSON_HEADERS };
  if (sessionId) Object.assign(headers, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' });
  if (method === 'GET') headers.accept = 'text/event-stream';
  return new Request(URL_, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** Opens a session as `owner` and returns its id. */
async function open(handle: Handle, owner: AuthInfo | undefined): Promise<string> {
  const response = await handle(request('POST', initialize), owner);
  assert.equal(response.status, 200);
  const id = response.headers.get('mcp-session-id');
  assert.ok(id);
  await response.arrayBuffer();
  const ack = await handle(request('POST', initialized, id), owner);
  assert.equal(ack.status, 202);
  return id;
}

async function status(response: Response): Promise<{ status: number; error?: { code: number; message: string } }> {
  const text = await response.text();
  const body = text.startsWith('{') ? (JSON.parse(text) as { error?: { code: number; message: string } }) : {};
  return { status: response.status, error: body.error };
}

/** Every way another principal could use the session: each refused as an unknown session. */
async function assertStrangerRefused(handle: Handle, id: string, stranger: AuthInfo | undefined): Promise<void> {
  for (const method of ['POST', 'GET', 'DELETE']) {
    const seen = await status(await handle(request(method, method === 'POST' ? listTools(7) : undefined, id), stranger));
    assert.equal(seen.status, 404, `${method} by another principal`);
    assert.equal(seen.error?.message, 'Session not found');
  }
}

async function assertOwnerServed(handle: Handle, id: string, owner: AuthInfo | undefined): Promise<void> {
  const response = await handle(request('POST', listTools(8), id), owner);
  assert.equal(response.status, 200);
  assert.match(await response.text(), /"hello"/);
}

function endpoint(options: Partial<McpHttpHandlerOptions> = {}): { handle: Handle; close: () => Promise<void> } {
  const handler = new McpHttpHandler({ createServer: makeServer, enableJsonResponse: true, ...options });
  return { handle: (req, authInfo) => handler.handle(req, { authInfo, localAddress: '127.0.0.1' }), close: () => handler.close() };
}

describe('sessions are bound to the principal that initialized them', { timeout: 30_000 }, () => {
  it('McpHttpHandler: another principal, or none, gets 404 on POST, GET and DELETE; the owner goes on', async () => {
    const { handle, close } = endpoint();
    try {
      const id = await open(handle, alice);
      await assertStrangerRefused(handle, id, bob);
      await assertStrangerRefused(handle, id, undefined);
      // A refreshed token of the same subject is the same principal.
      await assertOwnerServed(handle, id, aliceRefreshed);
      const deleted = await handle(request('DELETE', undefined, id), alice);
      assert.equal(deleted.status, 200);
    } finally {
      await close();
    }
  });

  it('a session opened without authentication refuses an authenticated stranger, and serves requests without it', async () => {
    const { handle, close } = endpoint();
    try {
      const id = await open(handle, undefined);
      await assertStrangerRefused(handle, id, bob);
      await assertOwnerServed(handle, id, undefined);
    } finally {
      await close();
    }
  });

  it('sessionPrincipal chooses what binds; false turns the binding off', async () => {
    const byClient = endpoint({ sessionPrincipal: (auth) => auth?.clientId });
    try {
      // Alice and Bob share one OAuth client: bound by client id, each may use the other's session.
      const id = await open(byClient.handle, alice);
      await assertOwnerServed(byClient.handle, id, bob);
    } finally {
      await byClient.close();
    }
    const unbound = endpoint({ sessionPrincipal: false });
    try {
      const id = await open(unbound.handle, alice);
      await assertOwnerServed(unbound.handle, id, undefined);
    } finally {
      await unbound.close();
    }
  });

  it('a transport used on its own binds its session too', async () => {
    const transport = new WebHttpMsgpackServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), enableJsonResponse: true });
    const server = makeServer();
    await server.connect(transport);
    const handle: Handle = (req, authInfo) => transport.handleRequest(req, { authInfo, localAddress: '127.0.0.1' });
    try {
      const id = await open(handle, alice);
      await assertStrangerRefused(handle, id, bob);
      await assertOwnerServed(handle, id, alice);
    } finally {
      await server.close();
    }
  });

  it('node:http: the auth a middleware puts on req.auth binds the session (handleNode)', async () => {
    const handler = new McpHttpHandler({ createServer: makeServer, enableJsonResponse: true });
    // The bearer middleware stand-in: each token names its user.
    const users: Record<string, AuthInfo> = { 'token-a': alice, 'token-b': bob };
    const http: Server = createServer((req: IncomingMessage & { auth?: AuthInfo }, res) => {
      req.auth = users[(req.headers.authorization ?? '').replace(/^Bearer /, '')];
      void handler.handleNode(req, res);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const handle: Handle = (req, authInfo) => {
      const headers = new Headers(req.headers);
      headers.delete('host');
      const token = Object.entries(users).find(([, user]) => user === authInfo)?.[0];
      if (token) headers.set('authorization', `Bearer ${token}`);
      return fetch(base, { method: req.method, headers, body: req.body, duplex: 'half' } as RequestInit);
    };
    try {
      const id = await open(handle, alice);
      await assertStrangerRefused(handle, id, bob);
      await assertOwnerServed(handle, id, alice);
    } finally {
      await handler.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });

  it('defaultSessionPrincipal: the subject when the verifier names one, else the client id; none without auth', () => {
    assert.equal(defaultSessionPrincipal(undefined), undefined);
    assert.equal(defaultSessionPrincipal(alice), defaultSessionPrincipal(aliceRefreshed));
    assert.notEqual(defaultSessionPrincipal(alice), defaultSessionPrincipal(bob));
    const noSubject = { token: 't', clientId: 'desktop', scopes: [] };
    assert.equal(defaultSessionPrincipal(noSubject), defaultSessionPrincipal({ ...noSubject, token: 'u' }));
    assert.notEqual(defaultSessionPrincipal(noSubject), defaultSessionPrincipal({ ...noSubject, clientId: 'cli' }));
  });
});
