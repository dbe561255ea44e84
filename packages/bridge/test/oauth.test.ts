// --oauth: the SDK's auth() through the bridge's loopback provider, the browser played by the test (it opens
// the URL the bridge prints and follows the redirect to the bridge's callback).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LIMIT, runBridge, waitFor } from './helpers/bridge.js';
import { startOAuthServer } from './helpers/oauth-server.js';
import { countingServer } from './helpers/servers.js';

/** Plays the user's browser: the authorization page approves at once and redirects to the callback. */
async function approveInBrowser(stderr: () => string, landing = /Authorized/): Promise<void> {
  await waitFor(() => /authorize in your browser: (\S+)/.test(stderr()), 'the authorization URL on stderr', LIMIT);
  const authorizationUrl = /authorize in your browser: (\S+)/.exec(stderr())![1]!;
  const page = await fetch(authorizationUrl, { redirect: 'manual' });
  const callback = page.headers.get('location');
  assert.ok(callback?.startsWith('http://127.0.0.1:'), `redirected to the bridge's loopback callback (${callback})`);
  const landed = await fetch(callback!);
  assert.match(await landed.text(), landing);
}

const line = (message: unknown) => JSON.stringify(message) + '\n';

/** The answer to request `id` among the JSON lines the bridge wrote, if there is one yet. */
function answer(stdout: string, id: number): { result?: { content?: { text?: string }[] }; error?: unknown } | undefined {
  for (const text of stdout.split('\n')) {
    if (!text.trim()) continue;
    const message = JSON.parse(text) as { id?: number; result?: { content?: { text?: string }[] }; error?: unknown };
    if (message.id === id) return message;
  }
  return undefined;
}

describe('host to remote: --oauth', () => {
  it('registers, sends the user to the authorization URL, takes the code on its loopback callback, and the waiting request goes through', async () => {
    const server = await startOAuthServer({ createServer: () => countingServer({ calls: 0 }) });
    // The bridge as the host sees it: JSON lines on its stdin and stdout.
    const bridge = runBridge([server.url.href, '--oauth', '--no-browser']);
    try {
      bridge.child.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h', version: '1' } } }));
      await approveInBrowser(bridge.stderr);
      await waitFor(() => answer(bridge.stdout(), 1) !== undefined, 'the initialize answer after authorizing', LIMIT);
      assert.ok(answer(bridge.stdout(), 1)!.result);
      assert.equal(server.stats.registered, 1);
      assert.equal(server.stats.issued, 1);
      bridge.child.stdin!.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      bridge.child.stdin!.write(line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'count', arguments: {} } }));
      await waitFor(() => answer(bridge.stdout(), 2) !== undefined, 'the tool call with the token', LIMIT);
      assert.equal(answer(bridge.stdout(), 2)!.result?.content?.[0]?.text, '1');
    } finally {
      await bridge.stop();
      await server.close();
    }
  });

  it("checks the authorization response's issuer (RFC 9207): the right `iss` goes through, a wrong one is refused before the code is redeemed", async () => {
    for (const [sent, accepted] of [
      ['issuer', true],
      ['https://attacker.example', false],
    ] as const) {
      const server = await startOAuthServer({ createServer: () => countingServer({ calls: 0 }) }, { advertised: true, sent });
      const bridge = runBridge([server.url.href, '--oauth', '--no-browser']);
      try {
        bridge.child.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h', version: '1' } } }));
        await approveInBrowser(bridge.stderr);
        await waitFor(() => answer(bridge.stdout(), 1) !== undefined, 'the answer to initialize', LIMIT);
        if (accepted) {
          assert.ok(answer(bridge.stdout(), 1)!.result);
          assert.equal(server.stats.issued, 1);
        } else {
          assert.ok(answer(bridge.stdout(), 1)!.error, 'initialize fails');
          assert.equal(server.stats.issued, 0, 'the code was never redeemed');
          assert.match(bridge.stderr(), /issuer/i);
        }
      } finally {
        await bridge.stop();
        await server.close();
      }
    }
  });
});
