// Reverse mode: `mcp-msgpack-bridge --serve -- <stdio server>` fronts a stock SDK stdio JSON server with our
// HTTP endpoint: our HTTP client gets MessagePack, the SDK's HTTP client JSON, each session its own child.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { LIMIT, runBridge, waitFor, withTimeout, type RunningBridge } from './helpers/bridge.js';
// Not from json-stdio-server.js: importing that would start a server on this process's stdin.
import { IMAGE } from './fixtures/image.js';

const CHILD = fileURLToPath(new URL('./fixtures/json-stdio-server.js', import.meta.url));

interface Content {
  type: string;
  text?: string;
  data?: string;
}

async function startServe(extra: string[] = []): Promise<{ bridge: RunningBridge; url: URL }> {
  const bridge = runBridge(['--serve', ...extra, '--', process.execPath, CHILD]);
  await waitFor(() => bridge.stdout().includes('\n') || bridge.child.exitCode !== null, 'the URL on stdout', LIMIT);
  assert.equal(bridge.child.exitCode, null, bridge.stderr());
  return { bridge, url: new URL(bridge.stdout().split('\n')[0]!.trim()) };
}

async function ourClient(url: URL): Promise<{ client: Client; transport: HttpMsgpackClientTransport }> {
  const transport = new HttpMsgpackClientTransport(url, { nativeBytes: true });
  const client = new Client({ name: 'ours', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

async function sdkClient(url: URL): Promise<Client> {
  const client = new Client({ name: 'stock', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

const textOf = (result: { content: unknown }) => (result.content as Content[])[0]!.text!;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('reverse mode: one child per session', () => {
  let bridge: RunningBridge;
  let url: URL;
  before(async () => ({ bridge, url } = await startServe()));
  after(() => bridge.stop());

  it('serves our HTTP client on MessagePack', async () => {
    const { client, transport } = await ourClient(url);
    try {
      assert.equal(transport.wire, 'msgpack');
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), ['crash', 'echo', 'image', 'pid']);
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'héllo' } }, { timeout: LIMIT })), 'héllo');
      const image = (await client.callTool({ name: 'image', arguments: {} }, { timeout: LIMIT })).content as Content[];
      assert.ok(Buffer.from(image[0]!.data!, 'base64').equals(Buffer.from(IMAGE)));
      assert.equal(transport.wire, 'msgpack');
    } finally {
      await client.close();
    }
  });

  it("serves the SDK's stock HTTP client on JSON", async () => {
    const client = await sdkClient(url);
    try {
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'json' } }, { timeout: LIMIT })), 'json');
      const image = (await client.callTool({ name: 'image', arguments: {} }, { timeout: LIMIT })).content as Content[];
      assert.ok(Buffer.from(image[0]!.data!, 'base64').equals(Buffer.from(IMAGE)));
    } finally {
      await client.close();
    }
  });

  it('gives each session its own child and ends it with the session', async () => {
    const a = await ourClient(url);
    const b = await ourClient(url);
    const pidA = Number(textOf(await a.client.callTool({ name: 'pid', arguments: {} }, { timeout: LIMIT })));
    const pidB = Number(textOf(await b.client.callTool({ name: 'pid', arguments: {} }, { timeout: LIMIT })));
    assert.notEqual(pidA, pidB);
    await a.transport.terminateSession();
    await a.client.close();
    await waitFor(() => !alive(pidA), `child ${pidA} ended with its session`);
    assert.ok(alive(pidB));
    await b.transport.terminateSession();
    await b.client.close();
    await waitFor(() => !alive(pidB), `child ${pidB} ended with its session`);
  });

  it('answers a call the child dies under with a JSON-RPC error, and ends the session', async () => {
    const { client } = await ourClient(url);
    try {
      const started = Date.now();
      await assert.rejects(client.callTool({ name: 'crash', arguments: {} }, { timeout: LIMIT }), /stdio server .* exited before answering/);
      assert.ok(Date.now() - started < 10_000);
      // The session is over: the next request is refused, not left hanging.
      await assert.rejects(withTimeout(client.callTool({ name: 'echo', arguments: { text: 'x' } }, { timeout: LIMIT }), LIMIT, 'call after the child died'));
    } finally {
      await client.close();
    }
    // And the endpoint goes on serving new sessions.
    const fresh = await ourClient(url);
    assert.equal(textOf(await fresh.client.callTool({ name: 'echo', arguments: { text: 'again' } }, { timeout: LIMIT })), 'again');
    await fresh.client.close();
  });

  it('refuses a foreign Host header (DNS rebinding), as the handler does', async () => {
    // node:http, since fetch does not let a caller set Host.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end('{}');
    });
    assert.equal(status, 403);
  });
});

describe('reverse mode: --shared', () => {
  let bridge: RunningBridge;
  let url: URL;
  before(async () => ({ bridge, url } = await startServe(['--shared'])));
  after(() => bridge.stop());

  it('puts every session on one child, each with its own answers', async () => {
    const a = await ourClient(url);
    const b = await sdkClient(url);
    try {
      const [pidA, pidB] = await Promise.all([a.client.callTool({ name: 'pid', arguments: {} }, { timeout: LIMIT }), b.callTool({ name: 'pid', arguments: {} }, { timeout: LIMIT })]);
      assert.equal(textOf(pidA), textOf(pidB));
      const [echoA, echoB] = await Promise.all([a.client.callTool({ name: 'echo', arguments: { text: 'a' } }, { timeout: LIMIT }), b.callTool({ name: 'echo', arguments: { text: 'b' } }, { timeout: LIMIT })]);
      assert.equal(textOf(echoA), 'a');
      assert.equal(textOf(echoB), 'b');
    } finally {
      await a.client.close();
      await b.close();
    }
  });
});
