// The HTTP client's authProvider driven by an SDK v2 Client: with both SDKs installed, the OAuth flow loaded
// is v2's (the v2 Client says it drives the transport), so its UnauthorizedError is v2's, and v2's auth()
// does discovery, PKCE, the code exchange and token refresh against the same small OAuth server as the v1
// tests (http-client-auth.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client, UnauthorizedError as V2UnauthorizedError } from '@modelcontextprotocol/client';
import { UnauthorizedError as V1UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { textOf } from './fixtures/http-helpers.js';
import { MemoryOAuthProvider, OAuthMock } from './fixtures/oauth-mock.js';

const LIMIT = 20_000;

/** Runs `body` with a fresh OAuth server and a way to make v2 Clients; closes them all afterwards. */
async function withMock(body: (mock: OAuthMock, newClient: () => Client) => Promise<void>): Promise<void> {
  const mock = await OAuthMock.start();
  const clients: Client[] = [];
  try {
    await body(mock, () => {
      const client = new Client({ name: 'auth-test-v2', version: '1.0.0' });
      clients.push(client);
      return client;
    });
  } finally {
    for (const client of clients) await client.close().catch(() => {});
    await mock.close();
  }
}

describe('HTTP client authProvider under an SDK v2 Client', { timeout: LIMIT }, () => {
  it("without tokens: v2's UnauthorizedError after discovery; finishAuth(code) gets tokens and the next connect works", () =>
    withMock(async (mock, newClient) => {
      const provider = new MemoryOAuthProvider();
      const first = new HttpMsgpackClientTransport(mock.mcpUrl, { authProvider: provider });
      const error: unknown = await newClient()
        .connect(first)
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      assert.ok(error instanceof V2UnauthorizedError, String(error));
      assert.ok(!(error instanceof V1UnauthorizedError), "v2's flow ran, not v1's");
      assert.equal(mock.requests('/.well-known/oauth-protected-resource/mcp').length, 1);
      assert.equal(provider.redirects.length, 1);
      const url = provider.redirects[0]!;
      assert.equal(`${url.origin}${url.pathname}`, `${mock.origin}/authorize`);
      assert.equal(url.searchParams.get('code_challenge_method'), 'S256');

      await first.finishAuth(mock.approve(url));
      assert.equal(provider.tokens()?.access_token, 'access-1');

      const client = newClient();
      await client.connect(new HttpMsgpackClientTransport(mock.mcpUrl, { authProvider: provider }));
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'after v2 auth' } })), 'after v2 auth');
      const posts = mock.requests('/mcp', 'POST');
      assert.equal(posts.at(-1)!.authorization, 'Bearer access-1');
    }));

  it("refreshes an access token the server refuses through v2's auth(), and retries the request", () =>
    withMock(async (mock, newClient) => {
      const provider = new MemoryOAuthProvider(mock.grant(true));
      mock.validTokens.delete('access-1');
      const client = newClient();
      await client.connect(new HttpMsgpackClientTransport(mock.mcpUrl, { authProvider: provider }));
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'refreshed' } })), 'refreshed');
      assert.deepEqual(
        mock
          .requests('/mcp', 'POST')
          .slice(0, 2)
          .map((request) => [request.authorization, request.outcome]),
        [
          ['Bearer access-1', 'invalid_token'],
          ['Bearer access-2', 'allow'],
        ],
      );
      assert.deepEqual(
        mock.requests('/token').map((request) => request.outcome),
        ['refresh_token'],
      );
    }));
});
