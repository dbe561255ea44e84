// The HTTP client's authProvider held to the SDK's own StreamableHTTPClientTransport (issue 43): the OAuth
// flow is the driving SDK's from the first request (a v2 Client's version probe included), finishAuth
// takes the authorization response's `iss` (or its whole query) so v2's RFC 9207 / SEP-2468 checks run, and
// step-up asks for the union of granted and challenged scopes with a new authorization. Against the small
// loopback OAuth server of fixtures/oauth-mock.ts.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { DpopSession, Client as V2Client, IssuerMismatchError, OAuthError, UnauthorizedError as V2UnauthorizedError } from '@modelcontextprotocol/client';
import { UnauthorizedError as V1UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HttpMsgpackClientTransport, type HttpMsgpackClientOptions } from 'mcp-msgpack-transport';
import { textOf } from './fixtures/http-helpers.js';
import { MemoryOAuthProvider, OAuthMock } from './fixtures/oauth-mock.js';

const LIMIT = 20_000;

/** A v2 Client that probes the server's era first (`server/discover`), as 'auto' negotiation does. */
const probingClient = () => new V2Client({ name: 'auth-parity-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
const v1Client = () => new V1Client({ name: 'auth-parity-v1', version: '1.0.0' });

/** A provider with a member only SDK v2's OAuthClientProvider has. */
class V2ShapedProvider extends MemoryOAuthProvider {
  resource: string | undefined;
  saveResourceUrl(url: string): void {
    this.resource = url;
  }
}

const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => assert.fail('expected a rejection'),
    (error: unknown) => error,
  );

let mock: OAuthMock | undefined;
const clients: { close(): Promise<void> }[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  await mock?.close();
  mock = undefined;
});

function track<C extends { close(): Promise<void> }>(client: C): C {
  clients.push(client);
  return client;
}

function transport(provider: object, options: HttpMsgpackClientOptions = {}): HttpMsgpackClientTransport {
  return new HttpMsgpackClientTransport(mock!.mcpUrl, { authProvider: provider as MemoryOAuthProvider, ...options });
}

describe('HTTP client auth: the flow of the SDK whose Client drives it, from the first request', { timeout: LIMIT }, () => {
  it("a v2 Client's version probe meets the 401: v2's UnauthorizedError, not a failed negotiation", async () => {
    mock = await OAuthMock.start();
    const provider = new MemoryOAuthProvider();
    const error = await rejection(track(probingClient()).connect(transport(provider)));
    assert.ok(error instanceof V2UnauthorizedError, String(error));
    assert.ok(!(error instanceof V1UnauthorizedError));
    assert.notEqual((error as { code?: unknown }).code, 'ERA_NEGOTIATION_FAILED');
    assert.equal(provider.redirects.length, 1);
  });

  it('under a v2 Client, authorization server metadata whose issuer does not match is refused (SEP-2468)', async () => {
    mock = await OAuthMock.start();
    mock.metadataOverrides = { issuer: 'https://elsewhere.example' };
    const provider = new MemoryOAuthProvider();
    const error = await rejection(track(probingClient()).connect(transport(provider)));
    assert.ok(!(error instanceof V2UnauthorizedError), 'not a redirect to authorize');
    assert.match(String((error as Error).message), /issuer/i);
    assert.equal(provider.redirects.length, 0, 'the user is never sent to that server');
  });

  it("a provider with a v2-only member gets v2's flow under any Client; `oauthSdk` says it outright", async () => {
    mock = await OAuthMock.start();
    const shaped = await rejection(track(v1Client()).connect(transport(new V2ShapedProvider())));
    assert.ok(shaped instanceof V2UnauthorizedError, String(shaped));
    const forced = await rejection(track(v1Client()).connect(transport(new MemoryOAuthProvider(), { oauthSdk: 2 })));
    assert.ok(forced instanceof V2UnauthorizedError, String(forced));
    const v1 = await rejection(track(probingClient()).connect(transport(new MemoryOAuthProvider(), { oauthSdk: 1 })));
    assert.ok(v1 instanceof V1UnauthorizedError, String(v1));
    const plain = await rejection(track(v1Client()).connect(transport(new MemoryOAuthProvider())));
    assert.ok(plain instanceof V1UnauthorizedError, 'with both SDKs installed and nothing showing v2: v1');
  });
});

describe('HTTP client auth: finishAuth checks the issuer of the authorization response (RFC 9207)', { timeout: LIMIT }, () => {
  /** Connects a v2 Client once to have the user sent to authorize; the code the browser would bring back. */
  async function authorizationCode(provider: MemoryOAuthProvider): Promise<{ code: string; first: HttpMsgpackClientTransport }> {
    const first = transport(provider);
    const error = await rejection(track(probingClient()).connect(first));
    assert.ok(error instanceof V2UnauthorizedError, String(error));
    return { code: mock!.approve(provider.redirects.at(-1)!), first };
  }

  it('a server that advertises `iss`: a missing or wrong one is refused before the code is redeemed; the right one, as code + iss or the whole query, works', async () => {
    mock = await OAuthMock.start();
    mock.metadataOverrides = { authorization_response_iss_parameter_supported: true };
    const provider = new MemoryOAuthProvider();
    const { code, first } = await authorizationCode(provider);

    await assert.rejects(first.finishAuth(code), IssuerMismatchError);
    await assert.rejects(first.finishAuth(code, 'https://attacker.example'), IssuerMismatchError);
    await assert.rejects(first.finishAuth(new URLSearchParams({ code, iss: `${mock.origin}/` })), IssuerMismatchError, 'compared as strings, no normalization');
    assert.equal(mock.requests('/token').length, 0, 'no code was redeemed');
    assert.equal(provider.tokens(), undefined);

    await first.finishAuth(new URLSearchParams({ code, state: 'test-state', iss: mock.origin }));
    assert.equal(provider.tokens()?.access_token, 'access-1');
    const client = track(probingClient());
    await client.connect(transport(provider));
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'authorized' } })), 'authorized');
  });

  it('a server that does not advertise it: an `iss` that is there must still match; code + right iss works', async () => {
    mock = await OAuthMock.start();
    const provider = new MemoryOAuthProvider();
    const { code, first } = await authorizationCode(provider);
    await assert.rejects(first.finishAuth(code, 'https://attacker.example'), IssuerMismatchError);
    await first.finishAuth(code, mock.origin);
    assert.equal(provider.tokens()?.access_token, 'access-1');
  });

  it('an error callback: its issuer is checked before its error text is shown', async () => {
    mock = await OAuthMock.start();
    mock.metadataOverrides = { authorization_response_iss_parameter_supported: true };
    const provider = new MemoryOAuthProvider();
    const { first } = await authorizationCode(provider);
    await assert.rejects(first.finishAuth(new URLSearchParams({ error: 'access_denied', iss: 'https://attacker.example' })), IssuerMismatchError);
    const denied = await rejection(first.finishAuth(new URLSearchParams({ error: 'access_denied', iss: mock.origin })));
    assert.ok(denied instanceof OAuthError, String(denied));
    assert.equal((denied as OAuthError).code, 'access_denied');
  });
});

describe('HTTP client auth: step-up (SEP-2350)', { timeout: LIMIT }, () => {
  for (const [name, newClient, Unauthorized] of [
    ['v1', v1Client, V1UnauthorizedError],
    ['v2', probingClient, V2UnauthorizedError],
  ] as const) {
    it(`${name} Client: asks for the granted scopes plus the challenged ones, and authorizes anew rather than refreshing`, async () => {
      mock = await OAuthMock.start();
      mock.challengeScope = 'mcp:admin';
      const granted = { ...mock.grant(true), scope: 'mcp' };
      mock.gate = ({ token }) => (token === granted.access_token ? 'insufficient_scope' : 'invalid_token');
      const provider = new MemoryOAuthProvider(granted);
      const error = await rejection(track(newClient()).connect(transport(provider)));
      assert.ok(error instanceof Unauthorized, String(error));
      assert.equal(provider.redirects.length, 1);
      assert.equal(provider.redirects[0]!.searchParams.get('scope'), 'mcp mcp:admin');
      assert.equal(mock.requests('/token').length, 0, 'a refresh cannot widen a grant: none was tried');
    });
  }
});

describe("HTTP client auth: SDK v2's minimal AuthProvider", { timeout: LIMIT }, () => {
  it('sends token(), calls onUnauthorized() after a 401, and sends the request again once', async () => {
    mock = await OAuthMock.start();
    const fresh = mock.grant(false).access_token;
    let current = 'expired';
    const calls: number[] = [];
    const provider = {
      token: () => current,
      onUnauthorized: async ({ response }: { response: Response }) => {
        calls.push(response.status);
        current = fresh;
      },
    };
    const client = track(probingClient());
    await client.connect(transport(provider));
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'token' } })), 'token');
    assert.deepEqual(calls, [401]);
    assert.deepEqual(
      mock
        .requests('/mcp', 'POST')
        .slice(0, 2)
        .map((request) => request.authorization),
      ['Bearer expired', `Bearer ${fresh}`],
    );
  });
});

describe('HTTP client auth: DPoP when the provider offers it (SEP-1932)', { timeout: LIMIT }, () => {
  /** A provider whose dpop() gives one key pair for the whole run, as v2's transport expects. */
  class DpopProvider extends MemoryOAuthProvider {
    private session: Promise<DpopSession> | undefined;
    dpop(): Promise<DpopSession> {
      this.session ??= DpopSession.create();
      return this.session;
    }
  }

  it('proofs on the token request and on every MCP request (fresh each time, DPoP scheme), nonces from the authorization and resource servers', async () => {
    mock = await OAuthMock.start();
    mock.dpop.asNonce = 'as-nonce-1';
    mock.dpop.rsNonce = 'rs-nonce-1';
    const provider = new DpopProvider();
    const first = transport(provider);
    const error = await rejection(track(probingClient()).connect(first));
    assert.ok(error instanceof V2UnauthorizedError, String(error));
    await first.finishAuth(new URLSearchParams({ code: mock.approve(provider.redirects[0]!), iss: mock.origin }));
    assert.equal((provider.tokens() as { token_type?: string }).token_type, 'DPoP');
    const tokenProofs = mock.dpopProofs.filter((proof) => proof.path === '/token');
    assert.equal(tokenProofs.length, 1);
    assert.equal(tokenProofs[0]!.nonce, 'as-nonce-1', "the authorization server's nonce, after its use_dpop_nonce");

    const client = track(probingClient());
    await client.connect(transport(provider));
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'bound' } })), 'bound');
    const mcpProofs = mock.dpopProofs.filter((proof) => proof.path === '/mcp');
    assert.ok(mcpProofs.length >= 2, `${mcpProofs.length} proofs`);
    assert.ok(
      mcpProofs.every((proof) => proof.nonce === 'rs-nonce-1'),
      "the resource server's nonce",
    );
    assert.equal(new Set(mcpProofs.map((proof) => proof.jti)).size, mcpProofs.length, 'a fresh proof per request');
    const accessToken = provider.tokens()!.access_token;
    const posts = mock.requests('/mcp', 'POST').filter((request) => request.outcome === 'allow');
    assert.ok(posts.length >= 2);
    assert.ok(posts.every((request) => request.authorization === `DPoP ${accessToken}`));
    assert.equal(mock.requests('/mcp').filter((request) => request.outcome === 'use_dpop_nonce').length, 1, 'one use_dpop_nonce challenge, answered once');
  });
});

describe('HTTP client auth and the wire: a JSON-only server behind an auth layer that reads JSON bodies', { timeout: LIMIT }, () => {
  it('the reconnect after step-up speaks JSON from its first request and ends authorized, with no authorization round beyond the two needed', async () => {
    mock = await OAuthMock.start();
    mock.challengeScope = 'mcp:admin';
    // Played in front of the server, as a gateway would: the auth layer reads the method from a JSON body
    // (a body it cannot read counts as a method of the base scope) and wants mcp:admin for tools/call; the
    // server behind it takes JSON only (415 to MessagePack).
    const posts: string[] = [];
    const gateway = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      if (init?.method !== 'POST' || new URL(String(input)).pathname !== '/mcp') return fetch(input, init);
      const type = headers.get('content-type') ?? '';
      posts.push(type);
      const text = typeof init.body === 'string' ? init.body : new TextDecoder().decode(init.body as Uint8Array);
      const method = type === 'application/json' ? (JSON.parse(text) as { method?: string }).method : undefined;
      const token = /^Bearer (.+)$/.exec(headers.get('authorization') ?? '')?.[1];
      const granted = (token && mock!.grantedScopes.get(token)?.split(' ')) || [];
      const needed = method === 'tools/call' ? 'mcp:admin' : 'mcp';
      const challenge = (error: string) => `Bearer error="${error}", scope="${needed}", resource_metadata="${mock!.resourceMetadataUrl}"`;
      if (!token) return new Response(null, { status: 401, headers: { 'www-authenticate': challenge('invalid_token') } });
      if (!granted.includes(needed)) return new Response(null, { status: 403, headers: { 'www-authenticate': challenge('insufficient_scope') } });
      if (type !== 'application/json') return new Response('Unsupported Media Type', { status: 415 });
      return fetch(input, init);
    }) as typeof fetch;
    mock.gate = ({ token }) => (token !== undefined && mock!.validTokens.has(token) ? 'allow' : 'invalid_token');
    const provider = new MemoryOAuthProvider();

    /** Connects and calls the admin tool; after a redirect to authorize, finishes it on that transport. */
    async function attempt(): Promise<'done' | 'authorize'> {
      const client = track(v1Client());
      const connection = transport(provider, { fetch: gateway });
      try {
        await client.connect(connection);
        assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'admin' } })), 'admin');
        return 'done';
      } catch (error) {
        assert.ok(error instanceof V1UnauthorizedError, String(error));
        await connection.finishAuth(mock!.approve(provider.redirects.at(-1)!));
        return 'authorize';
      } finally {
        await client.close().catch(() => {});
      }
    }

    assert.equal(await attempt(), 'authorize', 'no token yet');
    assert.equal(await attempt(), 'authorize', 'tools/call needs the wider scope');
    posts.length = 0;
    assert.equal(await attempt(), 'done');
    assert.equal(provider.redirects.length, 2);
    assert.deepEqual(
      provider.redirects.map((url) => url.searchParams.get('scope')),
      ['mcp', 'mcp mcp:admin'],
    );
    assert.ok(
      posts.every((type) => type === 'application/json'),
      `the reconnect posted ${posts.join(', ')}`,
    );
  });
});
