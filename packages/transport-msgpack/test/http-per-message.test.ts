// Per-message encoding over HTTP (SPEC.md 9.6): the cost policy, the server's signal header, and every
// combination of old and new peers: this package's client and server, 0.1.0 behaviour, stock SDK clients.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { decode } from '@msgpack/msgpack';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HttpMsgpackClientTransport, McpHttpHandler, callToolNative, listenBun, listenNode, type EncodingPolicy, type ReplyStreams } from 'mcp-msgpack-transport';
import { CanonicalEncoder } from 'mcp-msgpack-transport/wire';
// Internal (not exported): tests import such modules by relative path to the sources, compiled with them.
import { chooseWire, shapeOf, type EncodingBreakEven } from '../src/codec/encoding-policy.js';
import { createMediaClient, withTimeout } from './fixtures/native-helpers.js';
import { createNativeServer, mediaBytes } from './fixtures/native-tools.js';

const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';
const kinds = isBun ? (['node:http', 'Bun.serve'] as const) : (['node:http'] as const);
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => {});
});

const ACCEPT_MSGPACK = 'application/msgpack, application/vnd.mcp-msgpack.stream, application/json, text/event-stream';

describe('the cost policy (chooseWire)', () => {
  const table: EncodingBreakEven = { longStringChars: 1024, smallValues: 256, msgpackForSmall: false, msgpackForNumeric: true, msgpackForKeySparse: true, keyDenseMsgpackValues: Number.POSITIVE_INFINITY };
  const never = () => false;
  const small = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }] } };
  const text = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'x'.repeat(2000) }] } };
  const rows = { jsonrpc: '2.0', id: 1, result: { structuredContent: { rows: Array.from({ length: 3000 }, (_, i) => `row ${i}`) } } };
  const records = { jsonrpc: '2.0', id: 1, result: { structuredContent: { files: Array.from({ length: 1000 }, (_, i) => ({ path: `f${i}`, additions: i, deleted: false })) } } };
  const embedding = { jsonrpc: '2.0', id: 1, result: { structuredContent: { floats: Array.from({ length: 1536 }, (_, i) => Math.sin(i)), ints: Array.from({ length: 1536 }, (_, i) => i * 7) } } };

  it("'cheapest-cpu' follows the runtime's break-even by shape", () => {
    assert.equal(chooseWire(small, 'cheapest-cpu', table, never), 'json');
    assert.equal(chooseWire(small, 'cheapest-cpu', { ...table, msgpackForSmall: true }, never), 'msgpack');
    assert.equal(chooseWire(text, 'cheapest-cpu', table, never), 'msgpack');
    assert.equal(chooseWire(rows, 'cheapest-cpu', table, never), 'msgpack');
    assert.equal(chooseWire(records, 'cheapest-cpu', table, never), 'json');
    assert.equal(chooseWire(records, 'cheapest-cpu', { ...table, keyDenseMsgpackValues: 0 }, never), 'msgpack');
    // Numbers are a shape of their own, whatever the runtime decides for other arrays of values.
    assert.equal(chooseWire(embedding, 'cheapest-cpu', { ...table, msgpackForKeySparse: false }, never), 'msgpack');
    assert.equal(chooseWire(embedding, 'cheapest-cpu', { ...table, msgpackForNumeric: false }, never), 'json');
    // The string threshold is the runtime's: a 2,000-character text stays JSON where the break-even is later.
    assert.equal(chooseWire(text, 'cheapest-cpu', { ...table, longStringChars: 4096 }, never), 'json');
  });

  it('whatever needs MessagePack goes as MessagePack under cheapest-cpu; smallest and json ignore shape', () => {
    assert.equal(
      chooseWire(small, 'cheapest-cpu', table, () => true),
      'msgpack',
    );
    for (const message of [small, text, records]) {
      assert.equal(chooseWire(message, 'smallest', table, never), 'msgpack');
      assert.equal(
        chooseWire(message, 'json', table, () => true),
        'json',
      );
    }
  });

  it('reads at most a bounded number of values of a big message, and no more than that of one big array', () => {
    const big = Array.from({ length: 100_000 }, () => 1);
    const shape = shapeOf({ big });
    assert.equal(shape.truncated, true);
    assert.ok(shape.values <= 512);
    assert.equal(shape.numbers, shape.values - 2);
    // The walk's cost does not grow with an array it stops in: it queues only what it can still read.
    const pushes = { count: 0 };
    const counted = new Proxy(big, { get: (target, key, receiver) => (typeof key === 'string' && /^\d+$/.test(key) && pushes.count++, Reflect.get(target, key, receiver)) });
    shapeOf({ counted });
    assert.ok(pushes.count <= 512, `read ${pushes.count} items of a 100,000-item array`);
    // Bytes count as the base64 text they become where they cannot go as bin.
    assert.equal(shapeOf({ data: new Uint8Array(3000) }).longestString, 4000);
    // A message that fits is read whole.
    assert.deepEqual(shapeOf({ a: [1, 'xy', { b: null }] }), { values: 6, keys: 2, numbers: 1, longestString: 2, truncated: false, estimatedValues: 6 });
  });
});

/**
 * A fetch that records each POST's request Content-Type and its response's Content-Type and signal header.
 * `asOldServer`: the two signals of SPEC.md 9.6 are removed on the way (the Accept parameter, the response
 * header), so the server behaves, and looks, like a 0.1.0 server (MessagePack replies always, no signal).
 */
const accepts: string[] = [];
function recordingFetch(seen: { sent: string; type: string; signal: string | null }[], asOldServer = false): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    if (asOldServer) headers.set('accept', headers.get('accept')!.replace(';replies=any', ''));
    if (init?.method === 'POST') accepts.push(headers.get('accept') ?? '');
    let response = await fetch(input, { ...init, headers });
    if (asOldServer) {
      const stripped = new Headers(response.headers);
      stripped.delete('mcp-msgpack-wire');
      response = new Response(response.body, { status: response.status, statusText: response.statusText, headers: stripped });
    }
    if (init?.method === 'POST') seen.push({ sent: headers.get('content-type') ?? '', type: response.headers.get('content-type') ?? '', signal: response.headers.get('mcp-msgpack-wire') });
    return response;
  }) as typeof fetch;
}

for (const kind of kinds) {
  async function serve(options: { encoding?: EncodingPolicy; enableJsonResponse?: boolean; replyStreams?: ReplyStreams } = {}): Promise<URL> {
    const handler = new McpHttpHandler({
      createServer: createNativeServer,
      nativeBytes: true,
      enableJsonResponse: options.enableJsonResponse ?? true,
      encoding: options.encoding,
      replyStreams: options.replyStreams,
    });
    const running = kind === 'Bun.serve' ? await listenBun(handler) : await listenNode(handler);
    cleanups.push(() => running.close());
    return running.url;
  }

  async function connect(url: URL, seen: { sent: string; type: string; signal: string | null }[], options: { encoding?: EncodingPolicy; asOldServer?: boolean; nativeBytes?: boolean } = {}) {
    const fallbacks: unknown[] = [];
    const transport = new HttpMsgpackClientTransport(url, {
      nativeBytes: options.nativeBytes ?? true,
      encoding: options.encoding,
      fetch: recordingFetch(seen, options.asOldServer),
      onwirefallback: (f) => fallbacks.push(f),
    });
    const { client } = createMediaClient(10);
    cleanups.push(() => client.close());
    await withTimeout(client.connect(transport), 10_000, 'connect');
    return { client, transport, fallbacks };
  }

  describe(`per-message encoding over HTTP (${kind})`, { timeout: 60_000 }, () => {
    it('new client, new server: small replies in JSON with the signal, media in MessagePack, and the client stays on MessagePack', async () => {
      const seen: { sent: string; type: string; signal: string | null }[] = [];
      const { client, transport, fallbacks } = await connect(await serve(), seen);
      // initialize confirmed native bytes, which counts on MessagePack only: that reply went as MessagePack.
      assert.equal(seen[0]!.type, 'application/msgpack');
      const { tools } = await client.listTools();
      assert.ok(tools.length > 0);
      assert.equal(seen.at(-1)!.type, 'application/json', 'a small reply is cheaper as JSON');
      const image = await callToolNative(client, { name: 'image', arguments: { bytes: 4096 } });
      assert.equal(seen.at(-1)!.type, 'application/msgpack', 'media as bytes goes as MessagePack');
      const data = (image.content[1] as { data: unknown }).data;
      assert.ok(data instanceof Uint8Array && Buffer.from(data).equals(Buffer.from(mediaBytes(4096))));
      assert.deepEqual(fallbacks, []);
      assert.equal(transport.wire, 'msgpack');
      // The signal rides only where it is needed: on a JSON reply to a MessagePack request (a MessagePack
      // reply says it by its type; a client posts JSON only to a server it knows).
      assert.ok(
        seen.every((s) => (s.signal === 'v1') === (s.type === 'application/json' && s.sent === 'application/msgpack')),
        JSON.stringify(seen),
      );
      assert.ok(
        seen.some((s) => s.type === 'application/json' && s.sent === 'application/json' && s.signal === null),
        JSON.stringify(seen),
      );
      assert.ok(accepts.at(-1)!.startsWith('application/msgpack;replies=any,'), accepts.at(-1));
      // Requests: initialize (the native-bytes offer, before the server was known) as MessagePack; small
      // requests after it as JSON, since the server said it reads either.
      assert.equal(seen[0]!.sent, 'application/msgpack');
      assert.ok(
        seen.slice(1).every((s) => s.sent === 'application/json'),
        JSON.stringify(seen),
      );
    });

    it("client encoding: 'smallest' posts MessagePack always; replies stay the server's choice", async () => {
      const seen: { sent: string; type: string; signal: string | null }[] = [];
      const { client } = await connect(await serve(), seen, { encoding: 'smallest' });
      await client.listTools();
      assert.ok(
        seen.every((s) => s.sent === 'application/msgpack'),
        JSON.stringify(seen),
      );
      assert.equal(seen.at(-1)!.type, 'application/json');
      // A JSON reply to a MessagePack request carries the signal: the client may not know the server yet.
      assert.equal(seen.at(-1)!.signal, 'v1');
    });

    it('new client, 0.1.0 server (no signal, MessagePack replies): stays on MessagePack; requests per message once it has replied', async () => {
      const seen: { sent: string; type: string; signal: string | null }[] = [];
      const { client, transport, fallbacks } = await connect(await serve(), seen, { asOldServer: true });
      await client.listTools();
      const image = await callToolNative(client, { name: 'image', arguments: { bytes: 64 } });
      assert.ok((image.content[1] as { data: unknown }).data instanceof Uint8Array);
      // (The 202 to the initialized notification has no body, so no Content-Type.)
      assert.ok(
        seen.every((s) => (s.type === 'application/msgpack' || s.type === '') && s.signal === null),
        JSON.stringify(seen),
      );
      // Its MessagePack reply to initialize shows a msgpack-v1 server, which reads either request body
      // (SPEC.md 9.2, 0.1.0 included): small requests after it go as JSON, before it as MessagePack.
      assert.equal(seen[0]!.sent, 'application/msgpack');
      assert.ok(
        seen.slice(1).some((s) => s.sent === 'application/json'),
        JSON.stringify(seen),
      );
      assert.deepEqual(fallbacks, []);
      assert.equal(transport.wire, 'msgpack');
    });

    it("encoding: 'smallest' answers MessagePack always (0.1.0's behaviour)", async () => {
      const seen: { sent: string; type: string; signal: string | null }[] = [];
      const { client } = await connect(await serve({ encoding: 'smallest' }), seen);
      await client.listTools();
      assert.ok(
        seen.filter((s) => s.type !== '').every((s) => s.type === 'application/msgpack'),
        JSON.stringify(seen),
      );
    });

    it('streamed replies keep the wire they open with (frame stream for a MessagePack client)', async () => {
      const seen: { sent: string; type: string; signal: string | null }[] = [];
      const { client } = await connect(await serve({ enableJsonResponse: false, replyStreams: 'always' }), seen);
      await client.listTools();
      assert.equal(seen.at(-1)!.type, 'application/vnd.mcp-msgpack.stream');
    });

    it('held replies (the default without enableJsonResponse) are chosen per reply like one-body replies', async () => {
      const seen: { sent: string; type: string; signal: string | null }[] = [];
      const { client } = await connect(await serve({ enableJsonResponse: false }), seen);
      await client.listTools();
      assert.equal(seen.at(-1)!.type, 'application/json', 'a small reply is cheaper as JSON');
      await callToolNative(client, { name: 'image', arguments: { bytes: 4096 } });
      assert.equal(seen.at(-1)!.type, 'application/msgpack', 'media as bytes goes as MessagePack');
    });

    it('a 0.1.0 client (asks for MessagePack, does not say it reads both) gets MessagePack; the same POST saying so gets JSON', async () => {
      const url = await serve();
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '0.1.0' } } };
      const body = new CanonicalEncoder().encode(initialize) as BodyInit;
      const post = (extra: Record<string, string>) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/msgpack', accept: ACCEPT_MSGPACK, ...extra }, body });
      const old = await post({});
      assert.equal(old.headers.get('content-type'), 'application/msgpack');
      assert.equal((decode(new Uint8Array(await old.arrayBuffer())) as any).result.serverInfo.name, 'native-bytes-test-server');
      assert.equal(old.headers.get('mcp-msgpack-wire'), null, 'a MessagePack reply needs no signal');
      const fresh = await post({ accept: ACCEPT_MSGPACK.replace('application/msgpack', 'application/msgpack;replies=any') });
      assert.equal(fresh.headers.get('content-type'), 'application/json');
      assert.equal(fresh.headers.get('mcp-msgpack-wire'), 'v1');
      // The signal is part of Accept, which Vary already names: 0.1.0's Vary, unchanged.
      assert.equal(fresh.headers.get('vary'), 'Accept, Content-Type, Accept-Encoding');
      assert.equal((await fresh.json()).result.serverInfo.name, 'native-bytes-test-server');
    });

    it('a stock SDK client (JSON) is served as before', async () => {
      const { client } = createMediaClient(10);
      cleanups.push(() => client.close());
      await withTimeout(client.connect(new StreamableHTTPClientTransport(await serve())), 10_000, 'connect');
      const result = await client.callTool({ name: 'image', arguments: { bytes: 30 } });
      assert.equal((result.content as { data?: string }[])[1]!.data, Buffer.from(mediaBytes(30)).toString('base64'));
    });
  });
}

describe('the per-message signal in Accept', () => {
  it('is read on the MessagePack range only, in any case, spacing or quoting, and older readers see 0.1.0 Accept', async () => {
    const { MSGPACK_PER_MESSAGE_ACCEPT } = await import('../src/http/media.js');
    const { acceptsPerMessage, postReplyEncoding } = await import('../src/http/server/exchange/incoming-post.js');
    assert.equal(acceptsPerMessage(MSGPACK_PER_MESSAGE_ACCEPT), true);
    assert.equal(acceptsPerMessage(ACCEPT_MSGPACK), false);
    assert.equal(acceptsPerMessage(null), false);
    assert.equal(acceptsPerMessage('application/msgpack ; Replies="ANY", application/vnd.mcp-msgpack.stream'), true);
    assert.equal(acceptsPerMessage('application/msgpack;q=0.9;replies=any'), true);
    assert.equal(acceptsPerMessage('application/msgpack;replies=anything, application/json'), false);
    assert.equal(acceptsPerMessage('application/msgpack, application/json;replies=any'), false, 'on another range it says nothing');
    // A server that does not know the parameter (0.1.0's substring rules, the SDK's, Python's) reads the same wire.
    assert.equal(postReplyEncoding(MSGPACK_PER_MESSAGE_ACCEPT), 'msgpack');
    assert.ok(
      MSGPACK_PER_MESSAGE_ACCEPT.split(',')
        .map((t) => t.trim())
        .includes('application/json'),
    );
    assert.ok(
      MSGPACK_PER_MESSAGE_ACCEPT.split(',')
        .map((t) => t.trim())
        .includes('text/event-stream'),
    );
  });
});

describe('the client and a JSON reply', { timeout: 30_000 }, () => {
  it('without the signal it falls back to JSON; with it (tested above) it does not', async () => {
    const { wireDecision } = await import('../src/http/client/wire-fallback.js');
    assert.deepEqual(wireDecision({ status: 200, type: 'application/json' }), { wire: 'json', reason: 'json-reply', resend: false });
    assert.deepEqual(wireDecision({ status: 200, type: 'application/json', msgpackServer: true }), { wire: 'msgpack' });
  });
});
