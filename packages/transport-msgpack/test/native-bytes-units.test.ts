// The native-bytes pieces on their own: media fields, placeholders, the adapter's rules, bad input.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { PassThrough } from 'node:stream';
import { afterEach, describe, it } from 'node:test';
import { decode } from '@msgpack/msgpack';
import {
  NATIVE_BYTES_CAPABILITY,
  NATIVE_BYTES_EXTENSION,
  NativeCallToolResultSchema,
  PayloadError,
  StdioMsgpackServerTransport,
  configureNativeBytes,
  nativeBytesPlaceholders,
  nativeImage,
} from 'mcp-msgpack-transport';
import { CanonicalEncoder, FrameReader, NativeBytesAdapter } from 'mcp-msgpack-transport/wire';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
// Internal (not exported): tests import such modules by relative path to the sources, compiled with them.
import { OWN_DISCOVER_ID, OwnDiscover } from '../src/native-bytes/own-discover.js';
import { PlaceholderRegistry } from '../src/native-bytes/registry.js';
import { withTimeout } from './fixtures/native-helpers.js';
import { createNativeServer, mediaBytes } from './fixtures/native-tools.js';

const offer = { experimental: { [NATIVE_BYTES_CAPABILITY]: { version: 1 } } };
/** What a sender of this version announces: the extension and, for 0.1.0 peers, the experimental key. */
const announced = { ...offer, extensions: { [NATIVE_BYTES_EXTENSION]: { version: 1 } } };
const initialize = (id: number, capabilities: object): JSONRPCMessage =>
  ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 't', version: '1' } } }) as JSONRPCMessage;

/** A server adapter that has seen an offering initialize and sent its result: negotiated. */
function negotiatedServer(): NativeBytesAdapter {
  const adapter = new NativeBytesAdapter('server');
  adapter.fromWire(initialize(1, offer), 'msgpack', false);
  adapter.toWire({ jsonrpc: '2.0', id: 1, result: { capabilities: {} } } as JSONRPCMessage, 'msgpack');
  assert.equal(adapter.negotiated, true);
  return adapter;
}

afterEach(() => {
  configureNativeBytes({ ttlMs: 5 * 60_000, maxBytes: 512 * 1024 * 1024 });
  nativeBytesPlaceholders.clear();
});

describe('placeholders', () => {
  it('are short valid base64 that atob accepts, unique, and taken once', () => {
    const registry = new PlaceholderRegistry();
    const a = registry.register(new Uint8Array([1, 2, 3]));
    const b = registry.register(new Uint8Array([4]));
    assert.notEqual(a, b);
    for (const p of [a, b]) {
      assert.equal(p.length % 4, 0);
      assert.ok(atob(p).length > 0, 'atob("") is "" and would fail the SDK check; placeholders are never empty');
      assert.ok(registry.isPlaceholder(p));
    }
    assert.deepEqual([...registry.take(a)!], [1, 2, 3]);
    assert.equal(registry.take(a), undefined, 'a placeholder is good for one send');
    assert.equal(registry.isPlaceholder(Buffer.from('hello world, this is 32 chars!!').toString('base64')), false);
    assert.equal(new PlaceholderRegistry().isPlaceholder(b), false, 'each registry has its own random stem');
  });

  it('stay within the byte budget by dropping the oldest, and refuse one item over it', () => {
    const registry = new PlaceholderRegistry({ maxBytes: 100 });
    const first = registry.register(new Uint8Array(60));
    const second = registry.register(new Uint8Array(30));
    const third = registry.register(new Uint8Array(40));
    assert.deepEqual(registry.size, { entries: 2, bytes: 70 });
    assert.equal(registry.take(first), undefined);
    assert.ok(registry.take(second) && registry.take(third));
    assert.throws(() => registry.register(new Uint8Array(101)), RangeError);
    assert.throws(() => registry.register('text' as unknown as Uint8Array), TypeError);
  });

  it('are one registry per process, shared by the ESM and CommonJS builds when both are loaded', () => {
    const cjs = createRequire(import.meta.url)('mcp-msgpack-transport') as typeof import('mcp-msgpack-transport');
    assert.notEqual(cjs.nativeImage, nativeImage, 'two copies of the package are loaded');
    const placeholder = cjs.nativeImage(new Uint8Array([7, 8, 9]), 'image/png').data;
    // The ESM build's transports must find what the CommonJS build's helper registered.
    assert.deepEqual([...nativeBytesPlaceholders.take(placeholder)!], [7, 8, 9]);
  });

  it('expire after the TTL even if nobody asks', async () => {
    const registry = new PlaceholderRegistry({ ttlMs: 20 });
    const p = registry.register(new Uint8Array(10));
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.deepEqual(registry.size, { entries: 0, bytes: 0 });
    assert.equal(registry.take(p), undefined);
  });
});

describe('the adapter', () => {
  it('offers only on the msgpack wire, without touching the SDK message', () => {
    const client = new NativeBytesAdapter('client');
    const json = initialize(0, {});
    assert.equal(client.toWire(json, 'json'), json);
    const capabilities = { sampling: {} };
    const message = initialize(1, capabilities);
    const sent = client.toWire(message, 'msgpack') as any;
    assert.deepEqual(sent.params.capabilities, { sampling: {}, ...announced });
    assert.deepEqual(capabilities, { sampling: {} }, 'the original capabilities are unchanged');
    assert.equal(client.negotiated, false);
    client.fromWire({ jsonrpc: '2.0', id: 1, result: { capabilities: offer } }, 'msgpack', false);
    assert.equal(client.negotiated, true);
    assert.equal(client.binAllowed, true);
  });

  it('server: confirms an offer on msgpack only, and allows bin only from then on', () => {
    const onJson = new NativeBytesAdapter('server');
    onJson.fromWire(initialize(1, offer), 'json', false);
    const jsonResult = onJson.toWire({ jsonrpc: '2.0', id: 1, result: { capabilities: {} } } as JSONRPCMessage, 'json') as any;
    assert.equal(jsonResult.result.capabilities.experimental, undefined);
    assert.equal(onJson.negotiated, false);

    const server = new NativeBytesAdapter('server');
    server.fromWire(initialize(7, offer), 'msgpack', false);
    const early = { jsonrpc: '2.0', id: 8, method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'image', data: new Uint8Array([1]), mimeType: 'image/png' } }] } };
    assert.throws(() => server.fromWire(early, 'msgpack', true), { code: 'forbidden-type' }, 'not before the result is sent');
    const result = server.toWire({ jsonrpc: '2.0', id: 7, result: { capabilities: { tools: {} } } } as JSONRPCMessage, 'msgpack') as any;
    assert.deepEqual(result.result.capabilities, { tools: {}, ...announced });
    assert.equal(server.binAllowed, true);
  });

  it('walks only media fields: structuredContent and arguments are never touched', () => {
    const server = negotiatedServer();
    const bytes = new Uint8Array([9, 9, 9]);
    const image = nativeImage(bytes, 'image/png');
    const lookalike = { type: 'image', data: image.data, mimeType: 'image/png' };
    const message = { jsonrpc: '2.0', id: 2, result: { content: [image], structuredContent: { preview: lookalike } } } as unknown as JSONRPCMessage;
    const sent = server.toWire(message, 'msgpack') as any;
    assert.equal(sent.result.content[0].data, bytes, 'the same bytes, not a copy');
    assert.equal(sent.result.structuredContent.preview.data, image.data, 'left alone outside media fields');
    assert.equal((message as any).result.content[0].data, image.data, 'the SDK message is not modified');
    const plain = { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'x' }] } } as JSONRPCMessage;
    assert.equal(server.toWire(plain, 'msgpack'), plain, 'nothing to change: the same object');
  });

  it('reaches image data inside a sampling tool_result and an embedded resource', () => {
    const server = negotiatedServer();
    const block = nativeImage(new Uint8Array(5), 'image/png');
    const request = {
      jsonrpc: '2.0',
      id: 4,
      method: 'sampling/createMessage',
      params: { maxTokens: 1, messages: [{ role: 'user', content: [{ type: 'tool_result', toolUseId: 'u', content: [block] }] }] },
    } as unknown as JSONRPCMessage;
    const sent = server.toWire(request, 'json') as any;
    assert.equal(sent.params.messages[0].content[0].content[0].data, 'AAAAAAA=');
  });

  it('turns bin into base64 for the SDK, except for results of native requests', () => {
    const client = new NativeBytesAdapter('client');
    client.toWire(initialize(1, {}), 'msgpack');
    client.fromWire({ jsonrpc: '2.0', id: 1, result: { capabilities: offer } }, 'msgpack', false);
    const bin = new Uint8Array([1, 2, 3]);
    const response = (id: number) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'image', data: bin, mimeType: 'image/png' }] } });
    assert.equal((client.fromWire(response(2), 'msgpack', true) as any).result.content[0].data, 'AQID');
    const marked = Object.assign({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'x' } }, { [Symbol.for('mcp-msgpack-transport.native-result')]: true });
    client.toWire(marked as JSONRPCMessage, 'msgpack');
    assert.equal((client.fromWire(response(3), 'msgpack', true) as any).result.content[0].data, bin);
    assert.equal((client.fromWire(response(3), 'msgpack', true) as any).result.content[0].data, 'AQID', 'one response per marked id');
  });

  it('refuses bin outside a media field with a forbidden-type payload error that carries the id', () => {
    const server = negotiatedServer();
    const bad = { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'x', arguments: { blob: new Uint8Array(3) } } };
    assert.throws(
      () => server.fromWire(bad, 'msgpack', true),
      (e: unknown) => e instanceof PayloadError && e.code === 'forbidden-type' && e.clues?.id === 5 && e.clues.hasMethod,
    );
  });

  it('a placeholder that is gone: a result becomes an error response; a request fails to send', () => {
    const server = negotiatedServer();
    const registryStub = nativeImage(new Uint8Array(1), 'image/png');
    nativeBytesPlaceholders.clear();
    const answer = server.toWire({ jsonrpc: '2.0', id: 6, result: { content: [registryStub] } } as unknown as JSONRPCMessage, 'msgpack') as any;
    assert.equal(answer.id, 6);
    assert.match(answer.error.message, /are gone/);
    const request = { jsonrpc: '2.0', id: 7, method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: registryStub }] } };
    assert.throws(() => server.toWire(request as unknown as JSONRPCMessage, 'msgpack'), /are gone/);
  });

  it('the native schemas accept bytes or base64, and refuse bad base64', () => {
    const parse = (data: unknown) => NativeCallToolResultSchema.safeParse({ content: [{ type: 'image', data, mimeType: 'image/png' }] });
    assert.deepEqual([...(parse('AQID').data!.content[0] as { data: Uint8Array }).data], [1, 2, 3]);
    assert.deepEqual([...(parse(new Uint8Array([7])).data!.content[0] as { data: Uint8Array }).data], [7]);
    assert.equal(parse('AQ!D').success, false);
    assert.equal(parse('A').success, false);
  });
});

describe('the adapter on 2026-07-28: negotiated per request, no session', () => {
  const META = 'io.modelcontextprotocol/clientCapabilities';
  const envelope = (capabilities: object = {}) => ({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28', [META]: capabilities });
  const request = (id: number, method: string, params: object = {}, capabilities: object = {}): JSONRPCMessage =>
    ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(capabilities) } }) as JSONRPCMessage;
  const image = (data: unknown) => ({ type: 'image', data, mimeType: 'image/png' });
  const bytes = new Uint8Array([1, 2, 3]);

  it('client: offers in each request on msgpack only; the answer to that request (only) may be bin', () => {
    const client = new NativeBytesAdapter('client');
    const list = request(1, 'tools/list', {}, { sampling: {} });
    assert.equal(client.toWire(list, 'json'), list, 'nothing on JSON');
    const sent = client.toWire(request(2, 'tools/call', { name: 'x' }, { sampling: {} }), 'msgpack') as any;
    assert.deepEqual(sent.params._meta[META], { sampling: {}, ...announced });
    assert.equal(client.binAllowed, true);
    const answer = { jsonrpc: '2.0', id: 2, result: { content: [image(bytes)] } };
    assert.equal((client.fromWire(answer, 'msgpack', true) as any).result.content[0].data, 'AQID');
    assert.throws(() => client.fromWire({ ...answer, id: 3 }, 'msgpack', true), { code: 'forbidden-type' }, 'not for a request that did not offer');
    assert.equal(client.negotiated, false, 'nothing in force for the connection');
  });

  it('client: sends bin (in inputResponses) only after server/discover on msgpack advertised the extension', () => {
    const client = new NativeBytesAdapter('client');
    const retry = (id: number) => request(id, 'tools/call', { name: 'x', inputResponses: { ask: { role: 'assistant', model: 'm', content: image(bytes) } } });
    assert.equal((client.toWire(retry(1), 'msgpack') as any).params.inputResponses.ask.content.data, 'AQID', 'base64 before');
    client.toWire(request(2, 'server/discover'), 'msgpack');
    client.fromWire({ jsonrpc: '2.0', id: 2, result: { supportedVersions: ['2026-07-28'], capabilities: offer } }, 'msgpack', false);
    assert.equal((client.toWire(retry(3), 'msgpack') as any).params.inputResponses.ask.content.data, bytes, 'bin after');
  });

  it('client, stdio upgrade: its own server/discover after an accepting JSON answer to a 2026-07-28 request, and who waits for it', async () => {
    const client = new NativeBytesAdapter('client');
    const probe = client.advertisementProbe!;
    const wireOffer = { 'mcp-msgpack/wire': { offer: ['msgpack-v1'], mixed: true } };
    const offering = (id: number, method: string) => {
      const message = request(id, method, {}, { sampling: {} }) as any;
      message.params._meta = { ...message.params._meta, ...wireOffer, progressToken: 9 };
      return message as JSONRPCMessage;
    };
    const answer = (id: number) => ({ jsonrpc: '2.0', id, result: { supportedVersions: ['2026-07-28'], capabilities: {} } }) as JSONRPCMessage;
    const init = initialize(1, {}) as any;
    client.toWire({ ...init, params: { ...init.params, _meta: wireOffer } }, 'json');
    assert.equal(probe.settled(answer(1), true), undefined, 'not after a 2025-11-25 initialize');
    client.toWire(offering(2, 'server/discover'), 'json');
    assert.equal(probe.settled(answer(2), false), undefined, 'not when the upgrade is declined');
    client.toWire(offering(3, 'server/discover'), 'json');
    const own = probe.settled(answer(3), true) as any;
    assert.deepEqual(own, { jsonrpc: '2.0', id: 'mcp-msgpack/discover', method: 'server/discover', params: { _meta: envelope({ sampling: {} }) } }, 'the envelope only: no wire offer, no other key');
    const withBytes = request(4, 'tools/call', { name: 'x', inputResponses: { ask: { role: 'assistant', model: 'm', content: image(bytes) } } });
    const waiting = probe.ready(withBytes);
    assert.ok(waiting instanceof Promise, 'a request with bytes waits');
    assert.equal(probe.ready(request(5, 'tools/list')), undefined, 'one without does not');
    assert.equal(probe.ready({ jsonrpc: '2.0', id: 6, result: { content: [image(bytes)] } } as JSONRPCMessage), undefined, 'nor an answer');
    client.toWire(own as JSONRPCMessage, 'msgpack');
    const ownAnswer = { jsonrpc: '2.0', id: 'mcp-msgpack/discover', result: { supportedVersions: ['2026-07-28'], capabilities: offer } } as JSONRPCMessage;
    assert.equal(probe.answers(answer(4)), false);
    client.fromWire(ownAnswer, 'msgpack', false);
    assert.equal(probe.answers(ownAnswer), true, "its answer is the transport's");
    await waiting;
    assert.equal(probe.ready(withBytes), undefined, 'nothing waits once it is answered');
    assert.equal((client.toWire(withBytes, 'msgpack') as any).params.inputResponses.ask.content.data, bytes, 'bin, as advertised');
  });

  it('client, stdio upgrade: the end of the connection releases a request waiting for the advertisement', async () => {
    const probe = new NativeBytesAdapter('client').advertisementProbe!;
    const client = probe as unknown as { noteOffer(id: number, params: unknown): void };
    client.noteOffer(1, { _meta: envelope() });
    assert.ok(probe.settled({ jsonrpc: '2.0', id: 1, result: {} } as JSONRPCMessage, true));
    const waiting = probe.ready(request(2, 'tools/call', { name: 'x', inputResponses: { ask: { content: image(bytes) } } }))!;
    probe.end();
    await waiting;
    assert.equal(new NativeBytesAdapter('client', { negotiate: false }).advertisementProbe, undefined, 'no probe without the extension offered');
  });

  it('client, stdio upgrade: a server that never answers the own discover holds a request with bytes only for a bounded wait, and its late answer is still kept from the SDK', async () => {
    const probe = new OwnDiscover(() => true, 20);
    probe.noteOffer(1, { _meta: envelope() });
    assert.ok(probe.settled({ jsonrpc: '2.0', id: 1, result: {} } as JSONRPCMessage, true));
    const waiting = probe.ready(request(2, 'tools/call', { name: 'x' }));
    assert.ok(waiting instanceof Promise);
    // The bound's timer is unref'd (it must not keep a process alive): this test holds the event loop.
    const holdLoop = setTimeout(() => {}, 5_000);
    await waiting; // released by the bound, with no answer and the connection open
    clearTimeout(holdLoop);
    assert.equal(probe.ready(request(3, 'tools/call', { name: 'x' })), undefined, 'nothing waits after the bound');
    assert.equal(probe.answers({ jsonrpc: '2.0', id: OWN_DISCOVER_ID, result: {} } as JSONRPCMessage), true, "a late answer is the transport's");
    assert.equal(probe.answers({ jsonrpc: '2.0', id: OWN_DISCOVER_ID, result: {} } as JSONRPCMessage), false, 'once');
  });

  it('server: answers an offering request with bin, advertises in server/discover on msgpack, accepts bin in an offering request', () => {
    const server = new NativeBytesAdapter('server', {}, { stateless: true });
    server.fromWire(request(1, 'tools/call', { name: 'x' }, offer), 'msgpack', false);
    server.fromWire(request(2, 'tools/call', { name: 'x' }), 'msgpack', false);
    const result = (id: number) => ({ jsonrpc: '2.0', id, result: { content: [image(nativeImage(bytes, 'image/png').data)] } }) as JSONRPCMessage;
    assert.equal((server.toWire(result(1), 'msgpack') as any).result.content[0].data, bytes);
    assert.equal((server.toWire(result(2), 'msgpack') as any).result.content[0].data, 'AQID');
    server.fromWire(request(3, 'server/discover', {}, offer), 'msgpack', false);
    const discover = server.toWire({ jsonrpc: '2.0', id: 3, result: { supportedVersions: ['2026-07-28'], capabilities: {} } } as JSONRPCMessage, 'msgpack') as any;
    assert.deepEqual(discover.result.capabilities, announced);
    const carrying = (capabilities: object) => request(4, 'tools/call', { name: 'x', inputResponses: { ask: { content: [image(bytes)] } } }, capabilities);
    assert.equal((server.fromWire(carrying(offer), 'msgpack', true) as any).params.inputResponses.ask.content[0].data, 'AQID');
    assert.throws(() => server.fromWire(carrying({}), 'msgpack', true), { code: 'forbidden-type' });
    assert.equal(server.negotiated, false);
  });

  it('server: reaches the media of sampling requests embedded in an input_required result', () => {
    const server = new NativeBytesAdapter('server', {}, { stateless: true });
    server.fromWire(request(1, 'tools/call', { name: 'x' }, offer), 'msgpack', false);
    const inputRequired = {
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'input_required',
        inputRequests: { ask: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: image(nativeImage(bytes, 'image/png').data) }], maxTokens: 9 } } },
      },
    } as unknown as JSONRPCMessage;
    assert.equal((server.toWire(inputRequired, 'msgpack') as any).result.inputRequests.ask.params.messages[0].content.data, bytes);
  });

  it('a stateless server never confirms in initialize', () => {
    const server = new NativeBytesAdapter('server', {}, { stateless: true });
    server.fromWire(initialize(1, offer), 'msgpack', false);
    const result = server.toWire({ jsonrpc: '2.0', id: 1, result: { capabilities: {} } } as JSONRPCMessage, 'msgpack') as any;
    assert.deepEqual(result.result.capabilities, {});
    assert.equal(server.negotiated, false);
  });
});

describe('bin from a peer over stdio (raw frames)', { timeout: 30_000 }, () => {
  /** A raw msgpack-v1 peer talking to a server transport with native bytes enabled. */
  async function rawPeer() {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const transport = new StdioMsgpackServerTransport(stdin, stdout, { nativeBytes: true });
    const errors: Error[] = [];
    const server = createNativeServer();
    await server.connect(transport);
    transport.onerror = (e) => errors.push(e);
    const received: any[] = [];
    const reader = new FrameReader();
    stdout.on('data', (chunk: Buffer) => reader.push(chunk, (p) => received.push(decode(p))));
    const encoder = new CanonicalEncoder();
    const send = (value: unknown) => stdin.write(encoder.encodeFrame(value));
    const reply = async (id: number) => {
      await withTimeout(
        (async () => {
          while (!received.some((m) => m.id === id)) await new Promise((resolve) => setTimeout(resolve, 5));
        })(),
        5000,
        `reply ${id}`,
      );
      return received.find((m) => m.id === id);
    };
    return { send, reply, errors, close: () => server.close() };
  }

  for (const negotiated of [false, true]) {
    it(`${negotiated ? 'negotiated' : 'not negotiated'}: bin in tool arguments is refused as forbidden-type, and the connection goes on`, async () => {
      const peer = await rawPeer();
      try {
        peer.send(initialize(1, negotiated ? offer : {}));
        const init = await peer.reply(1);
        assert.equal(init.result.capabilities.experimental?.[NATIVE_BYTES_CAPABILITY] !== undefined, negotiated);
        peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        peer.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'image', arguments: { bytes: 3, extra: new Uint8Array(4) } } });
        const refused = await peer.reply(2);
        assert.equal(refused.error.data.reason, 'forbidden-type');
        // Refused while decoding, negotiated or not: no media field is a member of `arguments`.
        assert.match(refused.error.message, /bin at byte \d+ outside a media field/);
        assert.ok(peer.errors.some((e) => e instanceof PayloadError && e.code === 'forbidden-type'));
        peer.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'image', arguments: { bytes: 3 } } });
        const ok = await peer.reply(3);
        const data = ok.result.content[1].data;
        if (negotiated) assert.deepEqual([...data], [...mediaBytes(3)]);
        else assert.equal(data, Buffer.from(mediaBytes(3)).toString('base64'));
      } finally {
        await peer.close();
      }
    });
  }
});
