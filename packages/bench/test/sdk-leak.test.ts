// The benchmark's release of what the SDK's JSON-response mode keeps after each reply (servers/sdk-leak.ts):
// the pinned SDK does keep an entry per POST, the release drops answered ones, and never one still waiting
// for its reply. In process, web-standard Requests only; nothing about speed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { releaseAnsweredJsonStreams } from 'mcp-msgpack-bench';

interface Served {
  transport: WebStandardStreamableHTTPServerTransport;
  post(body: unknown): Promise<Response>;
  openGate(): void;
}

/** A stateful SDK server in JSON-response mode with an `echo` tool and a `gated` one that waits for openGate(). */
async function serve(): Promise<Served> {
  const server = new McpServer({ name: 'leak-test', version: '1.0.0' });
  let openGate!: () => void;
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  server.registerTool('echo', { inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'x'.repeat(1000) }] }));
  server.registerTool('gated', { inputSchema: {} }, async () => {
    await gate;
    return { content: [{ type: 'text', text: 'opened' }] };
  });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => 'session-1', enableJsonResponse: true });
  await server.connect(transport);
  const post = (body: unknown) =>
    transport.handleRequest(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'session-1', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
        body: JSON.stringify(body),
      }),
    );
  const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  assert.equal(init.status, 200);
  return { transport, post, openGate };
}

const call = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
const kept = (transport: object) => (transport as { _streamMapping: Map<string, unknown> })._streamMapping.size;

describe('the SDK JSON-response leak and its release (benchmark host)', () => {
  it('the pinned SDK keeps one entry per answered POST; releasing after each reply keeps none', async () => {
    const leaking = await serve();
    const released = await serve();
    for (let id = 1; id <= 5; id++) {
      assert.equal((await leaking.post(call(id, 'echo'))).status, 200);
      assert.equal((await released.post(call(id, 'echo'))).status, 200);
      releaseAnsweredJsonStreams(released.transport);
    }
    // initialize + 5 calls, all answered and all still held: the leak the benchmark works around.
    assert.equal(kept(leaking.transport), 6);
    assert.equal(kept(released.transport), 0);
  });

  it('leaves a POST still waiting for its reply alone: it is answered once the tool finishes', async () => {
    const served = await serve();
    const waiting = served.post(call(1, 'gated'));
    await new Promise((resolve) => setTimeout(resolve, 20)); // the call is now inside the tool
    assert.equal((await served.post(call(2, 'echo'))).status, 200);
    releaseAnsweredJsonStreams(served.transport);
    assert.equal(kept(served.transport), 1, 'the waiting POST keeps its entry');
    served.openGate();
    const reply = (await (await waiting).json()) as { id: number; result?: { content: { text: string }[] } };
    assert.equal(reply.id, 1);
    assert.equal(reply.result?.content[0]?.text, 'opened');
    releaseAnsweredJsonStreams(served.transport);
    assert.equal(kept(served.transport), 0);
  });
});
