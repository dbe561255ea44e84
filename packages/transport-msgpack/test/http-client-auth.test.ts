// HttpMsgpackClientTransport's authProvider path against a small OAuth server on 127.0.0.1: bearer tokens on
// every request, the SDK's auth() after a 401 (discovery, redirect, code exchange, refresh), one retry per
// request on both the POST and the GET-stream paths, and a clear error instead of a loop.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { MemoryEventStore, textOf, waitUntil } from './fixtures/http-helpers.js';
import { CLIENT_ID, MemoryOAuthProvider, OAuthMock, REDIRECT_URL } from './fixtures/oauth-mock.js';

const LIMIT = 20_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function newClient(): { client: Client; errors: Error[] } {
  const client = new Client({ name: 'auth-test', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  return { client, errors };
}

function isHttpError(code: number, message: RegExp): (error: unknown) => boolean {
  return (error) => error instanceof StreamableHTTPError && error.code === code && message.test(error.message);
}

describe('HTTP client authProvider', { timeout: LIMIT }, () => {
  let mock: OAuthMock | undefined;
  const clients: Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => {});
    await mock?.close();
    mock = undefined;
  });

  async function connect(provider: MemoryOAuthProvider): Promise<{ client: Client; transport: HttpMsgpackClientTransport; errors: Error[] }> {
    const transport = new HttpMsgpackClientTransport(mock!.mcpUrl, { authProvider: provider });
    const { client, errors } = newClient();
    clients.push(client);
    await client.connect(transport);
    return { client, transport, errors };
  }

  it('sends stored tokens as Authorization: Bearer on every request, over MessagePack', async () => {
    mock = await OAuthMock.start();
    const provider = new MemoryOAuthProvider(mock.grant(false));
    const { client, transport } = await connect(provider);
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'authorized' } })), 'authorized');
    assert.equal(transport.wire, 'msgpack');
    await waitUntil(() => mock!.requests('/mcp', 'GET').length === 1, 'the GET stream to open');

    const mcp = mock.requests('/mcp');
    assert.ok(mcp.length >= 4, 'initialize, initialized, tools/call and the GET stream');
    for (const request of mcp) {
      assert.equal(request.authorization, 'Bearer access-1', `${request.method} /mcp`);
      assert.equal(request.outcome, 'allow');
    }
    assert.equal(mcp.length, mock.log.length, 'no discovery or token requests');
    assert.equal(provider.redirects.length, 0);
  });

  it('without tokens: discovery, UnauthorizedError with a proper authorization URL; finishAuth(code) gets tokens and the next connect works', async () => {
    mock = await OAuthMock.start();
    const provider = new MemoryOAuthProvider();
    const first = new HttpMsgpackClientTransport(mock.mcpUrl, { authProvider: provider });
    await assert.rejects(newClient().client.connect(first), UnauthorizedError);

    assert.equal(mock.requests('/mcp')[0]!.authorization, undefined);
    // The WWW-Authenticate challenge named the resource metadata; the authorization server was found from it.
    assert.equal(mock.requests('/.well-known/oauth-protected-resource/mcp').length, 1);
    assert.ok(mock.requests('/.well-known/oauth-authorization-server').length >= 1);
    assert.equal(provider.redirects.length, 1);
    const url = provider.redirects[0]!;
    assert.equal(`${url.origin}${url.pathname}`, `${mock.origin}/authorize`);
    const params = url.searchParams;
    assert.equal(params.get('response_type'), 'code');
    assert.equal(params.get('client_id'), CLIENT_ID);
    assert.equal(params.get('redirect_uri'), REDIRECT_URL);
    assert.equal(params.get('code_challenge_method'), 'S256');
    assert.match(params.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.equal(params.get('state'), 'test-state');
    assert.equal(params.get('resource'), mock.mcpUrl.href);
    assert.equal(params.get('scope'), 'mcp');
    assert.equal(provider.tokens(), undefined);

    // A code the server never issued is refused; the real one (checked against the PKCE challenge) works.
    await assert.rejects(first.finishAuth('not-a-code'));
    assert.equal(provider.tokens(), undefined);
    const tokenCalls = mock.requests('/token').length;
    await first.finishAuth(mock.approve(url));
    const tokens = provider.tokens()!;
    assert.equal(tokens.access_token, 'access-1');
    assert.equal(tokens.refresh_token, 'refresh-1');
    assert.equal(tokens.issuer, mock.origin);
    assert.equal(mock.requests('/token').length, tokenCalls + 1);
    assert.equal(mock.requests('/token').at(-1)!.outcome, 'authorization_code');

    const before = mock.requests('/mcp').length;
    const { client } = await connect(provider);
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'after auth' } })), 'after auth');
    const later = mock.requests('/mcp').slice(before);
    assert.ok(later.length >= 3);
    assert.ok(later.every((request) => request.authorization === 'Bearer access-1' && request.outcome === 'allow'));
    assert.equal(provider.redirects.length, 1);
  });

  it('refreshes an access token the server refuses, and retries the request with the new one', async () => {
    mock = await OAuthMock.start();
    const provider = new MemoryOAuthProvider(mock.grant(true));
    mock.validTokens.delete('access-1'); // expired on the server's side
    const { client } = await connect(provider);
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'refreshed' } })), 'refreshed');
    const posts = mock.requests('/mcp', 'POST');
    assert.deepEqual(
      posts.slice(0, 2).map((request) => [request.authorization, request.outcome]),
      [
        ['Bearer access-1', 'invalid_token'],
        ['Bearer access-2', 'allow'],
      ],
    );
    assert.deepEqual(
      mock.requests('/token').map((request) => request.outcome),
      ['refresh_token'],
    );
  });

  it('concurrent requests that all carried an expired token each recover', async () => {
    mock = await OAuthMock.start();
    const provider = new MemoryOAuthProvider(mock.grant(true));
    const { client, errors } = await connect(provider);
    mock.validTokens.delete('access-1');
    const texts = ['a', 'b', 'c'];
    const results = await Promise.all(texts.map((text) => client.callTool({ name: 'echo', arguments: { text } })));
    assert.deepEqual(results.map(textOf), texts);
    assert.ok(mock.requests('/mcp', 'POST').filter((request) => request.outcome === 'invalid_token').length >= 3);
    assert.ok(mock.requests('/token').length >= 1);
    assert.deepEqual(
      errors.filter((error) => error instanceof StreamableHTTPError),
      [],
    );
  });

  it('POST: a server that answers 401 even after a successful refresh gets a clear error, not a loop', async () => {
    mock = await OAuthMock.start();
    mock.gate = () => 'invalid_token';
    const provider = new MemoryOAuthProvider(mock.grant(true));
    await assert.rejects(newClient().client.connect(new HttpMsgpackClientTransport(mock.mcpUrl, { authProvider: provider })), isHttpError(401, /401 after successful authentication/));
    assert.deepEqual(
      mock.requests('/mcp', 'POST').map((request) => request.authorization),
      ['Bearer access-1', 'Bearer access-2'],
    );
    assert.equal(mock.requests('/token').length, 1);
    assert.equal(provider.redirects.length, 0);
  });

  it('GET stream: a 401 runs auth() and reopens the stream with the new token', async () => {
    mock = await OAuthMock.start();
    // The stream wants a token fresher than the stored one; POSTs take either.
    mock.gate = ({ method, token }) => (token !== undefined && mock!.validTokens.has(token) && (method !== 'GET' || token !== 'access-1') ? 'allow' : 'invalid_token');
    const provider = new MemoryOAuthProvider(mock.grant(true));
    const { client } = await connect(provider);
    await waitUntil(() => mock!.handler.openStreamCount === 1, 'the GET stream to open after authorizing');
    assert.deepEqual(
      mock.requests('/mcp', 'GET').map((request) => [request.authorization, request.outcome]),
      [
        ['Bearer access-1', 'invalid_token'],
        ['Bearer access-2', 'allow'],
      ],
    );
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'x' } })), 'x');
    assert.equal(mock.requests('/mcp', 'POST').at(-1)!.authorization, 'Bearer access-2');
  });

  it('GET stream: a server that answers 401 even after a successful refresh gets one clear error, not a loop', async () => {
    mock = await OAuthMock.start();
    mock.gate = ({ method, token }) => (method !== 'GET' && token !== undefined && mock!.validTokens.has(token) ? 'allow' : 'invalid_token');
    const provider = new MemoryOAuthProvider(mock.grant(true));
    const { client, errors } = await connect(provider);
    await waitUntil(() => errors.some(isHttpError(401, /401 after successful authentication/)), 'the GET stream to report the refusal');
    // Settle a little, then check nothing kept retrying in the background.
    await sleep(200);
    assert.equal(mock.requests('/mcp', 'GET').length, 2);
    assert.equal(mock.requests('/token').length, 1);
    assert.equal(errors.filter(isHttpError(401, /./)).length, 1, 'reported once');
    // Requests on POST go on with the refreshed token.
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'still here' } })), 'still here');
  });

  it('GET resumption: after re-authorizing it resumes with the same Last-Event-ID', async () => {
    const store = new MemoryEventStore();
    mock = await OAuthMock.start({ eventStore: store });
    const provider = new MemoryOAuthProvider(mock.grant(true));
    const { client, transport } = await connect(provider);
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'stored' } })), 'stored');
    const replyEvent = store.events.find((event) => event.streamId !== '_GET_stream');
    assert.ok(replyEvent, 'the reply stream stored events');

    // The stored token has expired by the time the client resumes.
    mock.validTokens.delete('access-1');
    await transport.resumeStream(replyEvent.id);
    const resumed = mock.requests('/mcp', 'GET').filter((request) => request.lastEventId !== undefined);
    assert.deepEqual(
      resumed.map((request) => [request.authorization, request.lastEventId, request.outcome]),
      [
        ['Bearer access-1', replyEvent.id, 'invalid_token'],
        ['Bearer access-2', replyEvent.id, 'allow'],
      ],
    );
  });

  it('403 insufficient_scope: asks for the scope the server names, and does not loop when refused again', async () => {
    mock = await OAuthMock.start();
    mock.gate = () => 'insufficient_scope';
    // No refresh token: auth() has to send the user to authorize the wider scope.
    const provider = new MemoryOAuthProvider(mock.grant(false));
    await assert.rejects(newClient().client.connect(new HttpMsgpackClientTransport(mock.mcpUrl, { authProvider: provider })), UnauthorizedError);
    assert.equal(provider.redirects[0]?.searchParams.get('scope'), 'mcp mcp:admin');

    // A token whose grant already covers the challenged scopes is refreshed at once; the server still
    // refuses: one retry, then an error.
    const refreshing = new MemoryOAuthProvider({ ...mock.grant(true), scope: 'mcp mcp:admin' });
    const before = mock.requests('/mcp', 'POST').length;
    await assert.rejects(newClient().client.connect(new HttpMsgpackClientTransport(mock.mcpUrl, { authProvider: refreshing })), isHttpError(403, /403 after trying upscoping/));
    assert.equal(mock.requests('/mcp', 'POST').length - before, 2);
    assert.equal(refreshing.redirects.length, 0);
  });
});
