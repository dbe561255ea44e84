// The mixed stdio stream (SPEC.md 7.4): after the wire upgrade, peers that both said `mixed` send each
// message as a JSON line or a msgpack-v1 frame, whichever their `encoding` policy picks, and read both.
// Checked on the raw bytes, read by an independent splitter (wire-taps.ts splitMixed: JSON.parse and
// @msgpack/msgpack). Which encoding a message gets here rests on rules, not on tuned thresholds: a tiny
// message goes as JSON under 'cheapest-cpu' (MessagePack costs more CPU for small messages on every
// runtime), a string of thousands of characters as MessagePack (the long-string rule), media as bytes
// always as MessagePack.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransportV2 } from '@modelcontextprotocol/client/stdio';
import { StdioMsgpackClientTransport, type StdioMsgpackServerParameters } from 'mcp-msgpack-transport';
import { frame, frameOf, nestedArrays, requestWithRawParams, REGEXP_EXT } from './fixtures/stdio-bytes.js';
import { closeQuietly, fixture, textOf, waitUntil } from './fixtures/stdio-helpers.js';
import { clientOnPipes, line, serverOnPipes, settle } from './fixtures/stdio-pipes.js';
import { splitMixed, tappingSpawn } from './fixtures/wire-taps.js';

const KEY = 'mcp-msgpack/wire';
const OFFER = { [KEY]: { offer: ['msgpack-v1'] } };
const OFFER_MIXED = { [KEY]: { offer: ['msgpack-v1'], mixed: true } };
const ACCEPT = { [KEY]: { accept: 'msgpack-v1' } };
const ACCEPT_MIXED = { [KEY]: { accept: 'msgpack-v1', mixed: true } };
/** Far over every runtime's long-string threshold: MessagePack under 'cheapest-cpu'. */
const LONG = 'long text ✓ '.repeat(800);
const CALL = { timeout: 5_000 };

const small = (data: string) => ({ jsonrpc: '2.0' as const, method: 'notifications/message', params: { level: 'info', data } });
const kinds = (messages: Array<{ kind: string }>) => messages.map((m) => m.kind);

/** Our server on pipes, past an accepted upgrade: `offer` is what the client's initialize offered. */
async function switchedServer(offer: object, options: Parameters<typeof serverOnPipes>[1] = {}) {
  const s = serverOnPipes(undefined, options);
  await s.transport.start();
  s.input.write(line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', _meta: offer } }));
  await waitUntil(() => s.received.length === 1, 2000, 'the initialize request');
  await s.transport.send({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25' } });
  return s;
}

describe('mixed stream, server side', () => {
  it('accepts mixed when offered, then sends each message in its encoding and reads lines and frames in any order', async () => {
    const s = await switchedServer(OFFER_MIXED);
    await s.transport.send(small('tiny'));
    await s.transport.send(small(LONG));
    await s.transport.send(small('tiny again'));
    await settle();
    const written = s.mixed();
    assert.deepEqual(kinds(written), ['line', 'line', 'frame', 'line']);
    assert.deepEqual(written[0]!.message.result._meta, ACCEPT_MIXED);
    assert.deepEqual(
      written.slice(1).map((m) => m.message),
      [small('tiny'), small(LONG), small('tiny again')],
    );
    // The client's messages, lines and frames back to back in one chunk.
    const incoming = [small('a'), { jsonrpc: '2.0', id: 2, method: 'ping' }, small(LONG), { jsonrpc: '2.0', id: 3, method: 'ping' }];
    s.input.write(Buffer.concat([line(incoming[0]), frameOf(incoming[1]), frameOf(incoming[2]), line(incoming[3]), Buffer.from('\n')]));
    await waitUntil(() => s.received.length === 5, 2000, 'the mixed messages');
    assert.deepEqual(s.received.slice(1), incoming);
    assert.deepEqual(s.errors, []);
  });

  it('a 0.1.0 client (an offer without mixed) gets the plain acceptance, then frames only, even for a tiny message', async () => {
    const s = await switchedServer(OFFER);
    await s.transport.send(small('tiny'));
    await settle();
    assert.deepEqual(s.written(), { lines: [{ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25', _meta: ACCEPT } }], frames: [small('tiny')] });
  });

  it("encoding 'smallest' sends even a tiny message as a frame; 'json' even a long one as a line", async () => {
    const smallest = await switchedServer(OFFER_MIXED, { encoding: 'smallest' });
    await smallest.transport.send(small('tiny'));
    const json = await switchedServer(OFFER_MIXED, { encoding: 'json' });
    await json.transport.send(small(LONG));
    await settle();
    assert.deepEqual(kinds(smallest.mixed()), ['line', 'frame']);
    assert.deepEqual(kinds(json.mixed()), ['line', 'line']);
    assert.deepEqual(json.mixed()[1]!.message, small(LONG));
  });

  it('media as bytes goes as a frame, however small the message', async () => {
    const s = await switchedServer(OFFER_MIXED, { nativeBytes: true });
    await s.transport.send({ jsonrpc: '2.0', id: 9, result: { content: [{ type: 'image', mimeType: 'image/png', data: new Uint8Array([1, 2, 3]) as unknown as string }] } });
    await settle();
    const written = s.mixed();
    assert.deepEqual(kinds(written), ['line', 'frame']);
    // Not negotiated on this connection: base64 inside the frame (SPEC.md 8.2).
    assert.equal(written[1]!.message.result.content[0].data, 'AQID');
  });

  it('a bad line and a bad frame are each answered for their id, as on their own wire; the connection goes on', async () => {
    const s = await switchedServer(OFFER_MIXED);
    const notJsonRpc = Buffer.from('{"jsonrpc":"2.0","id":7,"method":5}\n');
    const forbidden = frame(requestWithRawParams(8, 'ping', REGEXP_EXT));
    const tooDeep = frame(requestWithRawParams(9, 'ping', nestedArrays(200)));
    s.input.write(Buffer.concat([notJsonRpc, forbidden, tooDeep, line({ jsonrpc: '2.0', id: 10, method: 'ping' })]));
    await waitUntil(() => s.received.length === 2 && s.errors.length === 3, 2000, 'the good request and three errors');
    assert.deepEqual(s.received[1], { jsonrpc: '2.0', id: 10, method: 'ping' });
    assert.deepEqual(
      s.errors.map((e) => (e as { code?: string }).code),
      ['not-json-rpc', 'forbidden-type', 'too-deep'],
    );
    await settle();
    const answers = s
      .mixed()
      .slice(1)
      .map((m) => m.message);
    assert.deepEqual(
      answers.map((a) => [a.id, a.error.code]),
      [
        [7, -32600],
        [8, -32700],
        [9, -32700],
      ],
    );
  });

  for (const [name, bytes] of [
    ['a frame header over the cap', Buffer.from([0x00, 0x00, 0x10, 0x00])],
    ['a line over the cap', Buffer.from(`{"jsonrpc":"2.0","method":"x","params":{"t":"${'y'.repeat(5000)}"}}\n`)],
  ] as const) {
    it(`the cap applies to both encodings: ${name} closes the connection`, async () => {
      const s = await switchedServer(OFFER_MIXED, { maxMessageBytes: 1024 });
      let closed = false;
      s.transport.onclose = () => (closed = true);
      s.input.write(Buffer.concat([line({ jsonrpc: '2.0', id: 2, method: 'ping' }), bytes]));
      await waitUntil(() => closed, 2000, 'the connection to close');
      assert.deepEqual(s.received.at(-1), { jsonrpc: '2.0', id: 2, method: 'ping' });
      assert.ok(s.errors.some((e) => ['frame-too-large', 'line-too-long'].includes((e as { code?: string }).code ?? '')));
    });
  }
});

describe('mixed stream, client side', () => {
  it('a mixed acceptance: reads the line and the frame after it in the same chunk, then sends tiny messages as lines and long ones as frames', async () => {
    const c = clientOnPipes();
    await c.transport.start();
    await c.transport.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25' } });
    c.fromServer.write(Buffer.concat([line({ jsonrpc: '2.0', id: 0, result: { _meta: ACCEPT_MIXED } }), frameOf(small(LONG)), line(small('after'))]));
    await waitUntil(() => c.events.length === 4, 2000, 'the events');
    assert.deepEqual(c.events, [{ wire: 'msgpack', reason: 'upgrade-accepted' }, { jsonrpc: '2.0', id: 0, result: {} }, small(LONG), small('after')]);
    await c.transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await c.transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: LONG } } });
    await settle();
    const written = c.mixed();
    assert.deepEqual(kinds(written), ['line', 'line', 'frame']);
    assert.deepEqual(written[0]!.message.params._meta, OFFER_MIXED);
    assert.equal(written[2]!.message.params.arguments.text, LONG);
    assert.deepEqual(c.errors, []);
    await c.transport.close();
  });

  it('a 0.1.0 server (acceptance without mixed): frames only, even for a tiny message', async () => {
    const c = clientOnPipes();
    await c.transport.start();
    await c.transport.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} });
    c.fromServer.write(line({ jsonrpc: '2.0', id: 0, result: { _meta: ACCEPT } }));
    await waitUntil(() => c.events.length === 2, 2000, 'the answer');
    await c.transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await settle();
    assert.deepEqual(kinds(c.mixed()), ['line', 'frame']);
    // And a JSON line from such a server after the switch is not read as one: it is a framing error.
    c.fromServer.write(line(small('not a frame')));
    await waitUntil(() => c.errors.length > 0, 2000, 'the framing error');
    await c.transport.close();
  });

  it("an acceptance whose 'mixed' is not exactly true is a plain one: frames only", async () => {
    const c = clientOnPipes();
    await c.transport.start();
    await c.transport.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} });
    c.fromServer.write(line({ jsonrpc: '2.0', id: 0, result: { _meta: { [KEY]: { accept: 'msgpack-v1', mixed: 'yes' } } } }));
    await waitUntil(() => c.events.length === 2, 2000, 'the answer');
    await c.transport.send(small('tiny'));
    await settle();
    assert.deepEqual(kinds(c.mixed()), ['line', 'frame']);
    await c.transport.close();
  });
});

describe('mixed stream end to end: our client and server as child processes, SDK v1 Client and McpServer', { timeout: 60_000 }, () => {
  it('both directions carry lines and frames after the switch, and every call works', async () => {
    const taps = tappingSpawn();
    const transport = new StdioMsgpackClientTransport({ command: process.execPath, args: [fixture('stdio-server')], spawn: taps.spawn });
    const client = new Client({ name: 'mixed-test', version: '1.0.0' });
    try {
      await client.connect(transport, { timeout: 10_000 });
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'tiny ✓' } }, undefined, CALL)), 'tiny ✓');
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: LONG } }, undefined, CALL)), LONG);
      const progress: number[] = [];
      await client.callTool({ name: 'progress', arguments: { steps: 3 } }, undefined, { ...CALL, onprogress: (p) => progress.push(p.progress) });
      assert.deepEqual(progress, [1, 2, 3]);
    } finally {
      await closeQuietly(client);
    }
    const sent = splitMixed(taps.toServer.bytes);
    const received = splitMixed(taps.toClient.bytes);
    assert.deepEqual(sent[0]!.message.params._meta, OFFER_MIXED);
    assert.deepEqual(received[0]!.message.result._meta, ACCEPT_MIXED);
    const echoOf = (text: string) => (m: { message: any }) => m.message.params?.arguments?.text === text;
    // Client to server: the tiny call as a line, the long one as a frame.
    assert.equal(sent.find(echoOf('tiny ✓'))!.kind, 'line');
    assert.equal(sent.find(echoOf(LONG))!.kind, 'frame');
    // Server to client: the answers likewise.
    const answerTo = (m: { message: any }) => received.find((r) => r.message.id === m.message.id)!;
    assert.equal(answerTo(sent.find(echoOf('tiny ✓'))!).kind, 'line');
    assert.equal(answerTo(sent.find(echoOf(LONG))!).kind, 'frame');
  });
});

describe('stock SDK stdio peers never see a frame', { timeout: 60_000 }, () => {
  // The long echo would be a frame on a mixed stream: a stock reader would fail on it.
  it('SDK v1 StdioClientTransport against our server', async () => {
    const client = new Client({ name: 'stock-v1', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [fixture('stdio-server')] }), { timeout: 10_000 });
    try {
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: LONG } }, undefined, CALL)), LONG);
    } finally {
      await closeQuietly(client);
    }
  });

  it('SDK v2 StdioClientTransport against our server', async () => {
    const client = new ClientV2({ name: 'stock-v2', version: '1.0.0' });
    await client.connect(new StdioClientTransportV2({ command: process.execPath, args: [fixture('stdio-server')] }));
    try {
      const result = await client.callTool({ name: 'echo', arguments: { text: LONG } });
      assert.equal(textOf(result), LONG);
    } finally {
      await client.close();
    }
  });

  it("our client against SDK v2's StdioServerTransport: the offer is ignored, JSON both ways", async () => {
    const taps = tappingSpawn();
    const params: StdioMsgpackServerParameters = { command: process.execPath, args: [fixture('v2-stdio-server'), 'v2'], spawn: taps.spawn };
    const transport = new StdioMsgpackClientTransport(params);
    const client = new Client({ name: 'ours-to-v2', version: '1.0.0' });
    try {
      await client.connect(transport, { timeout: 10_000 });
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: LONG } }, undefined, CALL)), LONG);
      assert.equal(transport.wire, 'json');
    } finally {
      await closeQuietly(client);
    }
    assert.ok(splitMixed(taps.toServer.bytes).every((m) => m.kind === 'line'));
    assert.ok(splitMixed(taps.toClient.bytes).every((m) => m.kind === 'line'));
  });
});
