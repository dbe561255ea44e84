// Native bytes declared as an MCP extension (capabilities.extensions, SEP-2133) beside the 0.1.0
// `experimental` key: new and old peers in each role, and which key wins when both appear (SPEC.md 8.1).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, it } from 'node:test';
import { decode } from '@msgpack/msgpack';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { NATIVE_BYTES_CAPABILITY, NATIVE_BYTES_EXTENSION, StdioMsgpackClientTransport, StdioMsgpackServerTransport, callToolNative, type SpawnFunction } from 'mcp-msgpack-transport';
import { CanonicalEncoder, FrameReader, NativeBytesAdapter } from 'mcp-msgpack-transport/wire';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { clientTransport, createMediaClient, inProcessPair, withTimeout } from './fixtures/native-helpers.js';
import { createNativeServer, mediaBytes } from './fixtures/native-tools.js';

const V1 = { version: 1 };
const legacyOnly = { experimental: { [NATIVE_BYTES_CAPABILITY]: V1 } };
const extensionOnly = { extensions: { [NATIVE_BYTES_EXTENSION]: V1 } };
const initialize = (capabilities: object): JSONRPCMessage =>
  ({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'old', version: '0.1.0' } } }) as JSONRPCMessage;
const initResult = (capabilities: object): JSONRPCMessage =>
  ({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25', capabilities, serverInfo: { name: 's', version: '1' } } }) as unknown as JSONRPCMessage;

/** A client adapter that sent its offer, then received `confirmation` as the initialize result. */
function clientAfter(confirmation: object): NativeBytesAdapter {
  const adapter = new NativeBytesAdapter('client');
  adapter.toWire(initialize({}), 'msgpack');
  adapter.fromWire(initResult(confirmation), 'msgpack', false);
  return adapter;
}

/** A server adapter that received `offer` in initialize and answered: returns what it sent and whether it is on. */
function serverAnswering(offer: object): { capabilities: Record<string, any>; negotiated: boolean } {
  const adapter = new NativeBytesAdapter('server');
  adapter.fromWire(initialize(offer), 'msgpack', false);
  const sent = adapter.toWire(initResult({ tools: {} }), 'msgpack') as any;
  return { capabilities: sent.result.capabilities, negotiated: adapter.negotiated };
}

describe('native bytes extension: the two keys', () => {
  it('a new client offers under extensions and under experimental, leaving the caller object alone', () => {
    const adapter = new NativeBytesAdapter('client');
    const capabilities = { roots: {} };
    const sent = adapter.toWire(initialize(capabilities), 'msgpack') as any;
    assert.deepEqual(sent.params.capabilities.extensions, { [NATIVE_BYTES_EXTENSION]: V1 });
    assert.deepEqual(sent.params.capabilities.experimental, { [NATIVE_BYTES_CAPABILITY]: V1 });
    assert.deepEqual(sent.params.capabilities.roots, {});
    assert.deepEqual(capabilities, { roots: {} });
  });

  it('a new server confirms under both keys to an offer in either (a 0.1.0 client reads experimental)', () => {
    for (const offer of [legacyOnly, extensionOnly, { ...legacyOnly, ...extensionOnly }]) {
      const { capabilities, negotiated } = serverAnswering(offer);
      assert.equal(negotiated, true, JSON.stringify(offer));
      assert.deepEqual(capabilities.extensions[NATIVE_BYTES_EXTENSION], V1);
      assert.deepEqual(capabilities.experimental[NATIVE_BYTES_CAPABILITY], V1);
      assert.deepEqual(capabilities.tools, {});
    }
  });

  it('a new client turns it on from a 0.1.0 server (experimental only) or an extensions-only server', () => {
    assert.equal(clientAfter(legacyOnly).negotiated, true);
    assert.equal(clientAfter(extensionOnly).negotiated, true);
    assert.equal(clientAfter({}).negotiated, false);
  });

  it('extensions wins when both appear: its version decides, whatever experimental says', () => {
    assert.equal(clientAfter({ extensions: { [NATIVE_BYTES_EXTENSION]: { version: 2 } }, ...legacyOnly }).negotiated, false);
    assert.equal(clientAfter({ extensions: { [NATIVE_BYTES_EXTENSION]: V1 }, experimental: { [NATIVE_BYTES_CAPABILITY]: { version: 2 } } }).negotiated, true);
    // A malformed entry under extensions is an entry: it is not overridden by the old key.
    assert.equal(serverAnswering({ extensions: { [NATIVE_BYTES_EXTENSION]: { version: 'one' } }, ...legacyOnly }).negotiated, false);
  });
});

describe('native bytes extension: the golden fixtures are what the adapters send', () => {
  const root = new URL('../../../../', import.meta.url);
  const fixture = (name: string) => JSON.parse(readFileSync(new URL(`fixtures/cases/${name}.json`, root), 'utf8')).message;

  it('the offer (native-bytes-extension-offer) and the confirmation (native-bytes-extension-confirm)', () => {
    const offer = fixture('native-bytes-extension-offer');
    const plain = { ...offer, params: { ...offer.params, capabilities: {} } };
    assert.deepEqual(new NativeBytesAdapter('client').toWire(plain, 'msgpack'), offer);
    const confirm = fixture('native-bytes-extension-confirm');
    const server = new NativeBytesAdapter('server');
    server.fromWire(offer, 'msgpack', false);
    assert.deepEqual(server.toWire({ ...confirm, result: { ...confirm.result, capabilities: { tools: {} } } }, 'msgpack'), confirm);
    assert.equal(server.negotiated, true);
  });
});

describe('native bytes extension: peers over stdio', { timeout: 30_000 }, () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    while (open.length > 0) await open.pop()!.close();
  });

  it('new client, new server: both keys on the wire, and an SDK v2 Client sees it in getServerCapabilities().extensions', async () => {
    const pair = inProcessPair(createNativeServer(), { nativeBytes: true });
    const client = new V2Client({ name: 'v2', version: '1' });
    open.push(client);
    await withTimeout(client.connect(clientTransport(pair, 'msgpack', true) as never), 10_000, 'connect');
    assert.deepEqual(client.getServerCapabilities()?.extensions?.[NATIVE_BYTES_EXTENSION], V1);
    assert.deepEqual(client.getServerCapabilities()?.experimental?.[NATIVE_BYTES_CAPABILITY], V1);
    const init = pair.toServer.frames()[0]!.value;
    assert.deepEqual(init.params.capabilities.extensions[NATIVE_BYTES_EXTENSION], V1);
    const result = await callToolNative(client as never, { name: 'image', arguments: { bytes: 300 } });
    assert.ok(result.content[1]!.type === 'image' && result.content[1]!.data instanceof Uint8Array);
    // The image travelled as bin: its frame holds the bytes, not base64 text.
    const frame = pair.toClient.frames().at(-1)!.value;
    assert.ok(frame.result.content[1].data instanceof Uint8Array);
  });

  it('a 0.1.0 client (experimental only) on a new server: confirmed under experimental, media as bin', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const server = createNativeServer();
    await server.connect(new StdioMsgpackServerTransport(stdin, stdout, { nativeBytes: true }));
    open.push(server);
    const received: any[] = [];
    const reader = new FrameReader();
    stdout.on('data', (chunk: Buffer) => reader.push(chunk, (payload) => received.push(decode(payload))));
    const encoder = new CanonicalEncoder();
    const reply = async (id: number) => {
      while (!received.some((m) => m.id === id)) await new Promise((resolve) => setTimeout(resolve, 5));
      return received.find((m) => m.id === id);
    };
    stdin.write(encoder.encodeFrame(initialize(legacyOnly)));
    const init = await withTimeout(reply(1), 5000, 'initialize');
    assert.deepEqual(init.result.capabilities.experimental[NATIVE_BYTES_CAPABILITY], V1);
    stdin.write(encoder.encodeFrame({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    stdin.write(encoder.encodeFrame({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'image', arguments: { bytes: 5 } } }));
    const call = await withTimeout(reply(2), 5000, 'tools/call');
    assert.deepEqual([...call.result.content[1].data], [...mediaBytes(5)]);
  });

  it('a new client on a 0.1.0 server (confirms under experimental only): on, media as bin', async () => {
    const { client } = createMediaClient(10);
    open.push(client);
    const spawn = oldServer(mediaBytes(7));
    await withTimeout(client.connect(new StdioMsgpackClientTransport({ command: 'old-server', spawn, wire: 'msgpack', nativeBytes: true })), 10_000, 'connect');
    assert.deepEqual(client.getServerCapabilities()?.experimental?.[NATIVE_BYTES_CAPABILITY], V1);
    const result = await callToolNative(client, { name: 'image', arguments: {} });
    const data = (result.content[0] as { data: unknown }).data;
    assert.ok(data instanceof Uint8Array);
    assert.deepEqual([...data], [...mediaBytes(7)]);
  });
});

/**
 * A msgpack-v1 server as 0.1.0 answers: it confirms under `experimental` only (it knows no `extensions`),
 * checks that the offer carried that key, and answers any tools/call with `image` as bin.
 */
function oldServer(image: Uint8Array): SpawnFunction {
  return () => {
    const child = new EventEmitter() as ChildProcess & { exitCode: number | null; signalCode: NodeJS.Signals | null };
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const encoder = new CanonicalEncoder();
    const reader = new FrameReader();
    const answer = (message: any): unknown => {
      if (message.method === 'initialize') {
        const offered = message.params.capabilities.experimental?.[NATIVE_BYTES_CAPABILITY];
        const capabilities = offered ? { tools: {}, experimental: { [NATIVE_BYTES_CAPABILITY]: V1 } } : { tools: {} };
        return { jsonrpc: '2.0', id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities, serverInfo: { name: 'old', version: '0.1.0' } } };
      }
      if (message.method === 'tools/call') return { jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'image', data: image, mimeType: 'image/png' }] } };
      return undefined;
    };
    stdin.on('data', (chunk: Buffer) =>
      reader.push(chunk, (payload) => {
        const out = answer(decode(payload));
        if (out) stdout.write(encoder.encodeFrame(out));
      }),
    );
    Object.assign(child, { stdin, stdout, stderr: null, pid: 1, exitCode: null, signalCode: null });
    const exit = () => {
      if (child.exitCode !== null) return;
      child.exitCode = 0;
      stdout.end();
      setImmediate(() => child.emit('close', 0, null));
    };
    (child as { kill: () => boolean }).kill = () => {
      exit();
      return true;
    };
    stdin.on('finish', exit);
    setImmediate(() => child.emit('spawn'));
    return child;
  };
}
