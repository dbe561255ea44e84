// Host to remote: a stock SDK stdio client launches `mcp-msgpack-bridge URL` as a desktop host would, and the
// bridge speaks MessagePack with native bytes to our servers, JSON to JSON-only ones, and recovers or fails
// cleanly when the server goes away.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { McpServer as V2McpServer } from '@modelcontextprotocol/server';
import { nativeImage } from 'mcp-msgpack-transport';
import { BRIDGE_BIN, connectHost, LIMIT, runBridge, waitFor, withTimeout } from './helpers/bridge.js';
import { countingServer, serveHandler, startMediaServer, startSdkJsonServer, type ServedHandler } from './helpers/servers.js';

const MSGPACK = 'application/msgpack';

interface ImageContent {
  type: string;
  data?: string;
  mimeType?: string;
  text?: string;
}

describe('host to remote: the media server over HTTP', () => {
  let dir: string;
  let image: Buffer;
  let server: ServedHandler;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bridge-media-'));
    image = randomBytes(300_000);
    await writeFile(join(dir, 'photo.png'), image);
    server = await startMediaServer(dir);
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves a desktop-style stdio client (SDK v2): tools listed, image bytes intact, MessagePack with native bytes on the network', async () => {
    const host = await connectHost(server.url);
    try {
      const { tools } = await host.client.listTools();
      assert.equal(tools.length, 14);
      assert.ok(tools.some((tool) => tool.name === 'read_media_file'));
      const before = server.exchanges.length;
      const result = await host.client.callTool({ name: 'read_media_file', arguments: { path: join(dir, 'photo.png') } }, { timeout: LIMIT });
      const content = (result.content as ImageContent[])[0]!;
      assert.equal(content.type, 'image');
      assert.equal(content.mimeType, 'image/png');
      // The host sees base64, exactly as from a JSON server.
      assert.ok(Buffer.from(content.data!, 'base64').equals(image));

      const call = server.exchanges.slice(before).filter((exchange) => exchange.method === 'POST');
      assert.ok(call.length >= 1);
      // Each request goes in whichever encoding costs less (SPEC 9.6, `encoding: 'cheapest-cpu'`): a small one may be
      // JSON on a msgpack-v1 session; the reply with the image is MessagePack whatever the policy, native bytes.
      for (const exchange of call) assert.ok([MSGPACK, 'application/json'].includes(exchange.requestType), exchange.requestType);
      const reply = call.find((exchange) => exchange.body.length > image.length)!;
      assert.ok(reply, 'the reply carrying the image');
      assert.ok(reply.responseType.startsWith(MSGPACK) || reply.responseType.startsWith('application/vnd.mcp-msgpack') || reply.responseType.includes('msgpack'), reply.responseType);
      // Native bytes: the file's bytes travel as they are (base64 would not contain them).
      assert.ok(reply.body.indexOf(image.subarray(0, 4096)) >= 0, 'the raw image bytes are on the wire');
      assert.ok(reply.body.length < image.length * 1.05, `reply of ${reply.body.length} bytes for ${image.length} bytes of image`);
      assert.match(host.stderr(), /connected to .* \(MessagePack\)/);
    } finally {
      await host.close();
    }
  });

  it('serves an SDK v1 stdio client (initialize, 2025-era revision) the same way', async () => {
    const transport = new V1StdioClientTransport({ command: process.execPath, args: [BRIDGE_BIN, server.url.href], stderr: 'pipe' });
    const client = new V1Client({ name: 'v1-host', version: '1.0.0' });
    await client.connect(transport);
    try {
      // The host sees no trace of the extension the bridge negotiated for itself.
      assert.doesNotMatch(JSON.stringify(client.getServerCapabilities()), /native-bytes/, "neither the extensions key nor 0.1.0's experimental one");
      const result = await client.callTool({ name: 'read_media_file', arguments: { path: join(dir, 'photo.png') } }, undefined, { timeout: LIMIT });
      assert.ok(Buffer.from((result.content as ImageContent[])[0]!.data!, 'base64').equals(image));
      const text = await client.callTool({ name: 'list_directory', arguments: { path: dir } }, undefined, { timeout: LIMIT });
      assert.match((text.content as ImageContent[])[0]!.text!, /photo\.png/);
    } finally {
      await client.close();
    }
  });
});

describe('host to remote: MCP 2026-07-28', () => {
  it('relays a pinned SDK v2 host: no session, Mcp-Method on every POST, MessagePack with native bytes, no trace of the extension', async () => {
    const image = randomBytes(100_000);
    const server = await serveHandler({
      createServer: () => {
        const mcp = new V2McpServer({ name: 'v2', version: '1.0.0' });
        // As the media server does: bytes handed to the transport, bin for a client that offered native bytes.
        mcp.registerTool('image', { description: 'an image' }, async () => ({ content: [nativeImage(image, 'image/png')] }));
        return mcp;
      },
      nativeBytes: true,
    });
    const transport = new StdioClientTransport({ command: process.execPath, args: [BRIDGE_BIN, server.url.href], stderr: 'pipe' });
    const client = new V2Client({ name: 'modern-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(transport);
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      assert.doesNotMatch(JSON.stringify(client.getServerCapabilities()), /native-bytes/, "neither the extensions key nor 0.1.0's experimental one");
      const result = await client.callTool({ name: 'image', arguments: {} }, { timeout: LIMIT });
      assert.ok(Buffer.from((result.content as ImageContent[])[0]!.data!, 'base64').equals(image));
      const posts = server.exchanges.filter((exchange) => exchange.method === 'POST');
      for (const post of posts) {
        assert.equal(post.sessionId, undefined);
        assert.ok(post.mcpMethod, 'Mcp-Method on every POST');
        assert.equal(post.requestType, MSGPACK);
      }
      const call = posts.find((post) => post.mcpMethod === 'tools/call')!;
      assert.ok(call.body.indexOf(image.subarray(0, 4096)) >= 0, 'the raw image bytes are on the wire');
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe("host to remote: a JSON-only server (the SDK's own Streamable HTTP server)", () => {
  it('falls back to JSON and relays everything', async () => {
    const image = randomBytes(2000);
    const server = await startSdkJsonServer(() => {
      const mcp = countingServer({ calls: 0 });
      mcp.registerTool('image', { description: 'an image', inputSchema: {} }, async () => ({ content: [{ type: 'image', data: image.toString('base64'), mimeType: 'image/png' }] }));
      return mcp;
    });
    const host = await connectHost(server.url);
    try {
      const result = await host.client.callTool({ name: 'image', arguments: {} }, { timeout: LIMIT });
      assert.ok(Buffer.from((result.content as ImageContent[])[0]!.data!, 'base64').equals(image));
      const count = await host.client.callTool({ name: 'count', arguments: {} }, { timeout: LIMIT });
      assert.equal((count.content as ImageContent[])[0]!.text, '1');
      assert.match(host.stderr(), /connected to .* \(JSON, /);
      const last = server.exchanges.filter((exchange) => exchange.method === 'POST').at(-1)!;
      assert.equal(last.requestType, 'application/json');
    } finally {
      await host.close();
      await server.close();
    }
  });
});

describe('host to remote: failures', () => {
  it("recovers when the server ends the session: a new session with the host's initialize, the call run once, one stderr line", async () => {
    const counter = { calls: 0 };
    const server = await serveHandler({ createServer: () => countingServer(counter) });
    const host = await connectHost(server.url);
    try {
      const first = await host.client.callTool({ name: 'count', arguments: {} }, { timeout: LIMIT });
      assert.equal((first.content as ImageContent[])[0]!.text, '1');
      const sessionId = server.exchanges.find((exchange) => exchange.sessionId)?.sessionId;
      assert.ok(sessionId, 'the bridge had a session');
      // The server ends the session, as an expiry or a restart would: its id now answers 404.
      const deleted = await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
      assert.equal(deleted.status, 200);
      const second = await host.client.callTool({ name: 'count', arguments: {} }, { timeout: LIMIT });
      assert.equal((second.content as ImageContent[])[0]!.text, '2', 'run once, not twice');
      assert.equal(counter.calls, 2);
      const third = await host.client.callTool({ name: 'count', arguments: {} }, { timeout: LIMIT });
      assert.equal((third.content as ImageContent[])[0]!.text, '3');
      assert.equal(host.stderr().match(/ended session/g)?.length, 1, host.stderr());
    } finally {
      await host.close();
      await server.close();
    }
  });

  it('answers with a JSON-RPC error when the server is gone mid-session, and keeps running', async () => {
    const server = await serveHandler({ createServer: () => countingServer({ calls: 0 }) });
    const host = await connectHost(server.url);
    try {
      await host.client.callTool({ name: 'count', arguments: {} }, { timeout: LIMIT });
      await server.close();
      const started = Date.now();
      await assert.rejects(host.client.callTool({ name: 'count', arguments: {} }, { timeout: LIMIT }), /mcp-msgpack-bridge: .*(reach|answer)/);
      assert.ok(Date.now() - started < 10_000);
      // Still there: the next call gets its own error, not a hang.
      await assert.rejects(host.client.callTool({ name: 'count', arguments: {} }, { timeout: LIMIT }), /mcp-msgpack-bridge/);
    } finally {
      await host.close();
    }
  });

  it('answers a request whose reply never comes with an error after --request-timeout', async () => {
    const server = await serveHandler({ createServer: () => countingServer({ calls: 0 }) });
    const host = await connectHost(server.url, ['--request-timeout', '1500']);
    try {
      const started = Date.now();
      await assert.rejects(host.client.callTool({ name: 'sleep', arguments: { ms: 5000 } }, { timeout: LIMIT }), /no answer from the server within 1500 ms/);
      assert.ok(Date.now() - started < 4500);
    } finally {
      await host.close();
      await server.close();
    }
  });

  it('exits non-zero with one line on stderr when no server listens at the URL', async () => {
    const server = await serveHandler({ createServer: () => countingServer({ calls: 0 }) });
    const url = server.url;
    await server.close();
    const bridge = runBridge([url.href]);
    try {
      bridge.child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h', version: '1' } } }) + '\n');
      const { code } = await withTimeout(bridge.exited, LIMIT, 'bridge exit');
      assert.equal(code, 1);
      const lines = bridge.stderr().trim().split('\n');
      assert.equal(lines.length, 1, bridge.stderr());
      assert.match(lines[0]!, /^mcp-msgpack-bridge: cannot use http:\/\/127\.0\.0\.1:\d+\/mcp: .*ECONNREFUSED/);
      // The host got an answer to its initialize before the exit.
      assert.match(bridge.stdout(), /"id":1,"error"/);
    } finally {
      await bridge.stop();
    }
  });

  it('exits 2 with the usage on a bad URL', async () => {
    const bridge = runBridge(['not a url']);
    const { code } = await withTimeout(bridge.exited, LIMIT, 'bridge exit');
    assert.equal(code, 2);
    assert.match(bridge.stderr(), /^mcp-msgpack-bridge: "not a url" is not a URL/);
  });

  it('exits 0 when the host closes stdin', async () => {
    const server = await serveHandler({ createServer: () => countingServer({ calls: 0 }) });
    const bridge = runBridge([server.url.href]);
    try {
      bridge.child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h', version: '1' } } }) + '\n');
      await waitFor(() => bridge.stdout().includes('"id":1'), 'the initialize answer');
      bridge.child.stdin!.end();
      const { code } = await withTimeout(bridge.exited, LIMIT, 'bridge exit');
      assert.equal(code, 0);
    } finally {
      await bridge.stop();
      await server.close();
    }
  });
});
