// Reverse mode and MCP 2026-07-28 clients (no initialize, no session). The child is a 2025-era stdio server
// with session state, so the bridge answers 2026-07-28 requests with -32022 (unsupported protocol version)
// and starts no child for them; SDK v2's client in 'auto' mode takes that as the cue to fall back to a
// 2025-11-25 session, which gets its own child, ended with the session. Checked by counting the bridge's
// child processes (Linux /proc).
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { LIMIT, runBridge, waitFor, withTimeout, type RunningBridge } from './helpers/bridge.js';
import { recordingFetch } from './helpers/recording-fetch.js';
import { IMAGE } from './fixtures/image.js';

const CHILD = fileURLToPath(new URL('./fixtures/json-stdio-server-v2.js', import.meta.url));
const MODERN = '2026-07-28';

interface Block {
  type: string;
  data?: string;
}

/** The bridge's child processes: every thread's `children` list. */
function childrenOf(pid: number): number[] {
  const pids: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const list = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
    if (list) pids.push(...list.split(' ').map(Number));
  }
  return pids;
}

/** Time for a child that was started after all to say so: proving that nothing happens takes a wait. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

describe('reverse mode: 2026-07-28 clients', () => {
  let bridge: RunningBridge;
  let url: URL;
  const children = () => childrenOf(bridge.child.pid!);
  const starts = () => bridge.stderr().split('json-stdio-server-v2: started').length - 1;
  before(async () => {
    bridge = runBridge(['--serve', '--', process.execPath, CHILD]);
    await waitFor(() => bridge.stdout().includes('\n') || bridge.child.exitCode !== null, 'the URL on stdout', LIMIT);
    assert.equal(bridge.child.exitCode, null, bridge.stderr());
    url = new URL(bridge.stdout().split('\n')[0]!.trim());
  });
  after(() => bridge.stop());

  it('answers a 2026-07-28 request with -32022 (listing no modern revision) and starts no child for it', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'media' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'media',
          arguments: {},
          _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} },
        },
      }),
    });
    const body = (await response.json()) as { id?: unknown; error?: { code: number; data?: { supported?: string[] } } };
    assert.equal(response.status, 400);
    assert.equal(body.id, 1);
    assert.equal(body.error?.code, -32022, JSON.stringify(body));
    assert.equal(response.headers.get('mcp-session-id'), null, 'no session');
    await settle();
    assert.equal(starts(), 0, 'no child started');
    assert.deepEqual(children(), [], 'none left');
  });

  it('refuses an SDK v2 client pinned to 2026-07-28 at connect, at once, leaving nothing behind', async () => {
    const client = new Client({ name: 'pinned', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
    const started = Date.now();
    await assert.rejects(withTimeout(client.connect(new StreamableHTTPClientTransport(url)), LIMIT, 'pinned connect'));
    assert.ok(Date.now() - started < 10_000);
    await client.close().catch(() => {});
    await settle();
    assert.equal(starts(), 0, 'no child started');
    assert.deepEqual(children(), []);
  });

  for (const kind of ["the SDK's HTTP client", 'our HTTP client with native bytes'] as const) {
    it(`serves ${kind} in 'auto' mode: falls back to a session, one child, ended with the session`, async () => {
      const recording = recordingFetch();
      const ours = kind.startsWith('our');
      const transport = ours ? new HttpMsgpackClientTransport(url, { nativeBytes: true, fetch: recording.fetch }) : new StreamableHTTPClientTransport(url, { fetch: recording.fetch });
      const client = new Client({ name: 'auto', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      const startsBefore = starts();
      await withTimeout(client.connect(transport), LIMIT, 'auto connect');
      try {
        assert.notEqual(client.getNegotiatedProtocolVersion(), MODERN);
        await waitFor(() => starts() === startsBefore + 1, "the session's child to start");
        assert.equal(children().length, 1, "the session's child, and no other (the probe started none)");
        const result = await client.callTool({ name: 'media', arguments: {} }, { timeout: LIMIT });
        assert.ok(Buffer.from((result.content as Block[])[0]!.data!, 'base64').equals(Buffer.from(IMAGE)));
        const wire = recording.received();
        if (ours) {
          assert.equal((transport as HttpMsgpackClientTransport).wire, 'msgpack');
          assert.ok(wire.includes(Buffer.from(IMAGE)), 'bin on the wire');
        } else assert.ok(!wire.includes(Buffer.from(IMAGE)), 'base64 on the wire');
      } finally {
        await (transport as { terminateSession(): Promise<void> }).terminateSession().catch(() => {});
        await client.close();
      }
      await waitFor(() => children().length === 0, 'the child ended with its session');
    });
  }
});
