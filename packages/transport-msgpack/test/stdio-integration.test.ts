// The stdio transports with the unmodified SDK McpServer and Client, over real child processes, on every
// pairing a user can meet: msgpack and JSON with our client, a stock SDK client against our server, and our
// JSON client against a stock SDK server. Then the same flows in-process over PassThrough streams.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { StdioMsgpackClientTransport, StdioMsgpackServerTransport } from 'mcp-msgpack-transport';
import { FrameReader, MsgpackDecoder } from 'mcp-msgpack-transport/wire';
import { closeQuietly, connectTestClient, fixture, TEST_ROOTS, textOf, waitUntil, withTimeout, type TestClient } from './fixtures/stdio-helpers.js';
import { createStdioTestServer, imageBytes } from './fixtures/stdio-tools.js';

const LIMIT = 15_000;

interface Pairing {
  name: string;
  serverName: string;
  transport(): Transport;
}

const pairings: Pairing[] = [
  {
    name: 'our client (msgpack) <-> our server',
    serverName: 'stdio-test-server',
    transport: () => new StdioMsgpackClientTransport({ command: process.execPath, args: [fixture('stdio-server')], wire: 'msgpack' }),
  },
  {
    name: 'our client (json) <-> our server (detects json)',
    serverName: 'stdio-test-server',
    transport: () => new StdioMsgpackClientTransport({ command: process.execPath, args: [fixture('stdio-server')], wire: 'json' }),
  },
  {
    name: "the SDK's StdioClientTransport <-> our server",
    serverName: 'stdio-test-server',
    transport: () => sdkStdioClient([fixture('stdio-server')]),
  },
  {
    name: "our client (json) <-> the SDK's StdioServerTransport",
    serverName: 'stdio-sdk-server',
    transport: () => new StdioMsgpackClientTransport({ command: process.execPath, args: [fixture('stdio-sdk-server')], wire: 'json' }),
  },
];

/**
 * The SDK's StdioClientTransport waits for 'drain' with one listener per send while the pipe is full
 * (each removed when it drains), so 40 concurrent large calls hold up to 40 listeners at once: not a leak,
 * but Node warns past 10. The limit is raised on that one pipe so a green run prints no warning.
 */
function sdkStdioClient(args: string[]): StdioClientTransport {
  const transport = new StdioClientTransport({ command: process.execPath, args });
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    (transport as unknown as { _process?: { stdin?: { setMaxListeners(n: number): void } } })._process?.stdin?.setMaxListeners(64);
  };
  return transport;
}

type Stat = 'cancelled' | 'rootsChanged';

/** One counter of what the server observed (the fixture's `stats` tool). */
async function statOf(test: TestClient, stat: Stat): Promise<number> {
  const result = await withTimeout(test.client.callTool({ name: 'stats', arguments: {} }), LIMIT, 'stats');
  return (result.structuredContent as Record<Stat, number>)[stat];
}

/** Polls the counter until it moves from `before`, within the time limit. */
async function statChange(test: TestClient, stat: Stat, before: number): Promise<number> {
  let now = before;
  await waitUntilAsync(async () => (now = await statOf(test, stat)) !== before, LIMIT, `the server's ${stat} to change`);
  return now;
}

async function waitUntilAsync(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Every MCP flow the issue lists, against a connected client; `serverName` is what initialize must report. */
function describeFlows(connect: () => Promise<TestClient>, serverName: string): void {
  let test: TestClient;
  before(async () => {
    test = await connect();
  });
  after(async () => {
    await closeQuietly(test?.client);
  });

  it('initialize: server info and capabilities', () => {
    assert.equal(test.client.getServerVersion()?.name, serverName);
    const capabilities = test.client.getServerCapabilities();
    assert.ok(capabilities?.tools, 'tools capability');
    assert.ok(capabilities?.logging, 'logging capability');
  });

  it('tools/list: every tool, with input and output schemas', async () => {
    const { tools } = await withTimeout(test.client.listTools(), LIMIT, 'listTools');
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['ask-client', 'echo', 'exit', 'image', 'notify', 'progress', 'slow', 'stats', 'structured']);
    const structured = tools.find((t) => t.name === 'structured')!;
    assert.deepEqual(Object.keys(structured.inputSchema.properties ?? {}), ['n']);
    assert.deepEqual(Object.keys(structured.outputSchema?.properties ?? {}).sort(), ['big', 'values']);
  });

  it('tools/call: text, including characters beyond the BMP', async () => {
    const text = 'héllo 𝄞 wörld \u0000 "quoted" \\ end';
    const result = await withTimeout(test.client.callTool({ name: 'echo', arguments: { text } }), LIMIT, 'echo');
    assert.equal(textOf(result), text);
  });

  it('tools/call: structuredContent with a 2^40 integer and fractions', async () => {
    const result = await withTimeout(test.client.callTool({ name: 'structured', arguments: { n: 3 } }), LIMIT, 'structured');
    assert.deepEqual(result.structuredContent, { values: [0, 1.5, 3], big: 2 ** 40 + 3 });
    assert.equal(textOf(result), '3 values');
  });

  it('tools/call: an image result arrives byte for byte', async () => {
    const result = await withTimeout(test.client.callTool({ name: 'image', arguments: { bytes: 100_003 } }), LIMIT, 'image');
    const image = (result.content as Array<{ type: string; data: string; mimeType: string }>)[0]!;
    assert.equal(image.type, 'image');
    assert.equal(image.mimeType, 'image/png');
    assert.ok(Buffer.from(image.data, 'base64').equals(imageBytes(100_003)));
  });

  it('notifications: server to client (logging) and client to server (roots/list_changed)', async () => {
    const logsBefore = test.logs.length;
    await withTimeout(test.client.callTool({ name: 'notify', arguments: { text: 'note-1' } }), LIMIT, 'notify');
    // The notification was written before the result, so it has been handled by the time the call ends.
    assert.deepEqual(test.logs.slice(logsBefore), ['note-1']);

    const before = await statOf(test, 'rootsChanged');
    await test.client.sendRootsListChanged();
    // The notification and the next stats call travel in order, but its handler may run a moment later.
    assert.equal(await statChange(test, 'rootsChanged', before), before + 1);
  });

  it('progress: every notification, in order, before the result', async () => {
    const events: string[] = [];
    const arrived: string[] = [];
    // What the transport hands the SDK, in order (the SDK's Protocol keeps its own onmessage wrapper).
    const transport = test.client.transport!;
    const inner = transport.onmessage!;
    transport.onmessage = (message, extra) => {
      arrived.push('method' in message ? `${message.method} ${(message.params as { progress?: number }).progress}` : 'response');
      inner(message, extra);
    };
    try {
      const result = await withTimeout(
        test.client.callTool({ name: 'progress', arguments: { steps: 6 } }, undefined, {
          onprogress: (p) => events.push(`progress ${p.progress}/${p.total}`),
        }),
        LIMIT,
        'progress',
      );
      events.push(`result ${textOf(result)}`);
    } finally {
      transport.onmessage = inner;
    }
    assert.deepEqual(arrived, [1, 2, 3, 4, 5, 6].map((i) => `notifications/progress ${i}`).concat('response'));
    if (transport instanceof StdioClientTransport) {
      // The SDK's own transport hands on every message of a chunk back to back, and its Protocol drops
      // progress notifications that share a chunk with the result (their handler runs a microtask later,
      // after the result removed it): with this fast a server, some callbacks are lost. Ours are not.
      assert.ok(events.at(-1) === 'result done');
      return;
    }
    assert.deepEqual(events, ['progress 1/6', 'progress 2/6', 'progress 3/6', 'progress 4/6', 'progress 5/6', 'progress 6/6', 'result done']);
  });

  it('cancellation: aborting callTool rejects it and the server handler sees the abort', async () => {
    const before = await statOf(test, 'cancelled');
    const controller = new AbortController();
    // The tool reports progress once it runs: abort then, so the server certainly has the request.
    const call = test.client.callTool({ name: 'slow', arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort(new Error('user cancelled')),
    });
    await assert.rejects(withTimeout(call, LIMIT, 'slow'), /user cancelled/);
    assert.equal(await statChange(test, 'cancelled', before), before + 1);
  });

  it('ping', async () => {
    assert.deepEqual(await withTimeout(test.client.ping(), LIMIT, 'ping'), {});
  });

  it('server-to-client requests: sampling, elicitation, roots/list', async () => {
    const result = await withTimeout(test.client.callTool({ name: 'ask-client', arguments: {} }), LIMIT, 'ask-client');
    assert.deepEqual(result.structuredContent, {
      sample: { type: 'text', text: 'sampled: hello?' },
      elicited: { name: 'Ada' },
      roots: TEST_ROOTS,
    });
  });

  it('many concurrent calls all get their own answers', async () => {
    const texts = Array.from({ length: 40 }, (_, i) => `call-${i}-${'x'.repeat(i * 997)}`);
    const results = await withTimeout(Promise.all(texts.map((text) => test.client.callTool({ name: 'echo', arguments: { text } }))), LIMIT, 'concurrent echo');
    assert.deepEqual(results.map(textOf), texts);
  });
}

for (const pairing of pairings) {
  describe(`stdio child process: ${pairing.name}`, () => {
    describeFlows(() => connectTestClient(pairing.transport()), pairing.serverName);
  });
}

/** Two PassThrough pipes: the server transport on one end, a client on the other, no child process. */
function inProcessPair(clientWire: 'msgpack' | 'json') {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const serverTransport = new StdioMsgpackServerTransport(toServer, toClient);
  // The server transport is a plain stream transport: on the other end, it serves as the client's transport.
  const clientTransport = new StdioMsgpackServerTransport(toClient, toServer, { wire: clientWire });
  const sent: Buffer[] = [];
  toClient.on('data', (chunk: Buffer) => sent.push(chunk));
  return { toServer, toClient, serverTransport, clientTransport, serverBytes: () => Buffer.concat(sent) };
}

for (const wire of ['msgpack', 'json'] as const) {
  describe(`stdio in-process (PassThrough): server transport, client speaking ${wire}`, () => {
    const pair = inProcessPair(wire);
    const server = createStdioTestServer('stdio-test-server');
    describeFlows(async () => {
      await server.connect(pair.serverTransport);
      return connectTestClient(pair.clientTransport);
    }, 'stdio-test-server');

    it(`answers on the wire it detected (${wire})`, () => {
      assert.equal(pair.serverTransport.wire, wire);
      const bytes = pair.serverBytes();
      if (wire === 'json') {
        assert.equal(bytes[0], 0x7b, 'JSON replies start with {');
        assert.equal(bytes[bytes.length - 1], 0x0a, 'and end with a newline');
      } else {
        // Every byte the server wrote splits into frames, each a valid payload.
        const reader = new FrameReader();
        const decoder = new MsgpackDecoder();
        let frames = 0;
        reader.push(bytes, (payload) => {
          decoder.decode(payload);
          frames++;
        });
        assert.equal(reader.pendingBytes, 0);
        assert.ok(frames > 10);
        // 2^40 + 3 travels as a canonical uint64 (0xcf), not as a float64.
        const big = Buffer.from([0xcf, 0, 0, 1, 0, 0, 0, 0, 3]);
        assert.ok(bytes.includes(big), 'uint64 2^40+3 on the wire');
      }
    });

    it('closes when its input ends', async () => {
      let closed = false;
      const previous = pair.serverTransport.onclose;
      pair.serverTransport.onclose = () => {
        closed = true;
        previous?.();
      };
      pair.toServer.end();
      await waitUntil(() => closed, LIMIT, 'onclose after end of input');
      await assert.rejects(pair.serverTransport.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }), /Not connected/);
    });
  });
}
