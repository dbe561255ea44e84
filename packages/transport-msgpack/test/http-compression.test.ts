// HTTP content codings (README "Compression", SPEC.md "Content codings"): the handler compresses what a client
// asks for by Accept-Encoding, on both wires, one-body replies over a threshold and event streams flushed per
// event; the client offers what its fetch decodes and compresses requests once the server says it takes a
// coding; decoded sizes count against the same caps, so ratio bombs, truncated and corrupt codings and codings
// nobody offered end in a clear refusal. Node and Bun, node:http and Bun.serve.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { HttpMsgpackClientTransport, listenBun, listenNode, McpHttpHandler, nativeImage, type McpHttpHandlerOptions } from 'mcp-msgpack-transport';
import { CanonicalEncoder, MSGPACK_CLIENT_ACCEPT, MsgpackDecoder } from 'mcp-msgpack-transport/wire';
import { fetch as undiciFetch } from 'undici';
import { z } from 'zod';
import { acceptedCodings, negotiateCoding } from '../src/http/content-coding/accept-encoding.js';
import { mostlyNativeBytes } from '../src/http/content-coding/bin-heavy.js';
import { resolveCompression } from '../src/http/content-coding/compression-options.js';
import { MCP_DICTIONARY_CODING, mcpDictionaryV1 } from '../src/http/content-coding/mcp-dictionary.js';
import { runtime } from '../src/runtime/current.js';
import type { ContentCoding } from '../src/runtime/content-codings.js';
import { Gate } from './fixtures/gated-server.js';
import { serverKinds, waitUntil, type ServerKind } from './fixtures/http-helpers.js';
import { mediaBytes } from './fixtures/native-tools.js';
import { streamEvents, type Wire } from './fixtures/stream-events.js';

const codings = runtime.contentCodings.encodes;
const repoRoot = new URL('../../../../', import.meta.url);
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => {});
});

/** Text that compresses as real tool output does: words, repeated with variation. */
function prose(bytes: number): string {
  const words = ['file', 'directory', 'name', 'size', 'modified', 'content', 'type', 'text', 'path', 'entries'];
  let text = '';
  for (let i = 0; text.length < bytes; i++) text += `${words[i % 10]}-${i % 97} `;
  return text.slice(0, bytes);
}

/** Text of 1, 2, 3 and 4 UTF-8 bytes a character (a surrogate pair for the last), different per seed. */
function unicodeText(units: number, seed: number): string {
  const pieces = ['a', 'é', '€', '😀', ' ', String(seed)];
  let text = '';
  for (let i = 0; text.length < units; i++) text += pieces[(i * 7 + seed) % pieces.length];
  return text;
}

function createServer(gate: Gate): McpServer {
  const server = new McpServer({ name: 'compression-test', version: '1.0.0' });
  server.registerTool('text', { inputSchema: { bytes: z.number() } }, async ({ bytes }) => ({ content: [{ type: 'text', text: prose(bytes) }] }));
  server.registerTool('unicode', { inputSchema: { units: z.number(), seed: z.number() } }, async ({ units, seed }) => ({ content: [{ type: 'text', text: unicodeText(units, seed) }] }));
  server.registerTool('echo-length', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text: String(text.length) }] }));
  server.registerTool('image', { inputSchema: { bytes: z.number() } }, async ({ bytes }) => ({ content: [nativeImage(mediaBytes(bytes), 'image/png')] }));
  // Progress 1, then waits for the test: the test opens the gate only once it has read progress 1, so a
  // stream that held an event back until the next would never end.
  server.registerTool('gated', {}, async (extra) => {
    const token = extra._meta?.progressToken ?? 'gated';
    await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2, message: prose(3000) } });
    await gate.wait();
    await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: 2, total: 2, message: prose(3000) } });
    return { content: [{ type: 'text', text: prose(5000) }] };
  });
  return server;
}

async function serve(kind: ServerKind, options: Partial<McpHttpHandlerOptions> = {}, gate = new Gate()): Promise<URL> {
  const handler = new McpHttpHandler({ createServer: () => createServer(gate), stateless: true, nativeBytes: true, ...options });
  const running = kind === 'Bun.serve' ? await listenBun(handler) : await listenNode(handler);
  cleanups.push(() => running.close());
  return running.url;
}

const INIT_PARAMS = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'coding', version: '1' } };
const JSON_ACCEPT = 'application/json, text/event-stream';

/** A raw POST of one message on a wire, with `acceptEncoding` (none when undefined). */
function post(url: URL, wire: Wire, message: object, acceptEncoding: string | undefined, extra: Record<string, string> = {}): Promise<Response> {
  const headers: Record<string, string> = {
    'content-type': wire === 'json' ? 'application/json' : 'application/msgpack',
    accept: wire === 'json' ? JSON_ACCEPT : MSGPACK_CLIENT_ACCEPT,
    'mcp-protocol-version': '2025-11-25',
    ...extra,
  };
  // A fetch adds its own Accept-Encoding when there is none: identity is the client that asks for nothing.
  headers['accept-encoding'] = acceptEncoding ?? 'identity';
  const body = wire === 'json' ? JSON.stringify(message) : (new CanonicalEncoder().encode(message) as BodyInit);
  // undici's fetch, the client's default on Node: Node 22's global fetch (its bundled undici 6) passes a zstd
  // body through undecoded, so a test reading events through it would wait for text that never comes.
  return undiciFetch(url, { method: 'POST', headers, body } as never) as unknown as Promise<Response>;
}

const callTool = (id: number, name: string, args: object) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: { progressToken: id } } });

/** The raw bytes of a reply as they came over the wire (node:http: no decoding), with its headers. */
function rawPost(url: URL, headers: Record<string, string>, body: Uint8Array | string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** A raw request's headers on a wire, asking `acceptEncoding`. */
function wireHeaders(wire: Wire, acceptEncoding: string): Record<string, string> {
  return { 'content-type': wire === 'json' ? 'application/json' : 'application/msgpack', accept: wire === 'json' ? JSON_ACCEPT : MSGPACK_CLIENT_ACCEPT, 'accept-encoding': acceptEncoding };
}

/** A raw request body on a wire: the `text` tool called for `bytes` of prose. */
function textCall(wire: Wire, id: number, bytes: number): Uint8Array | string {
  const message = callTool(id, 'text', { bytes });
  return wire === 'json' ? JSON.stringify(message) : new CanonicalEncoder().encode(message);
}

function rawDecode(coding: string, bytes: Buffer): Buffer {
  if (coding === 'gzip') return zlib.gunzipSync(bytes);
  if (coding === 'br') return zlib.brotliDecompressSync(bytes);
  return (zlib as unknown as { zstdDecompressSync(b: Buffer): Buffer }).zstdDecompressSync(bytes);
}

describe(`the MCP dictionary (${MCP_DICTIONARY_CODING}, fixtures/dictionary)`, () => {
  it('has the bytes of the fixture, which another implementation reads', () => {
    assert.deepEqual(Buffer.from(mcpDictionaryV1()), readFileSync(new URL('fixtures/dictionary/mcp-dictionary-v1.bin', repoRoot)));
  });

  it("the coded fixture decodes to the canonical encoding of its message, with this package's decoder and with zlib's", () => {
    const source = JSON.parse(readFileSync(new URL('fixtures/dictionary/reply-msgpack.json', repoRoot), 'utf8')) as { message: object };
    const coded = readFileSync(new URL('fixtures/dictionary/reply-msgpack.coded', repoRoot));
    const plain = Buffer.from(new CanonicalEncoder().encode(source.message));
    assert.deepEqual(Buffer.from(runtime.contentCodings.dictionary!.decode(coded, mcpDictionaryV1(), plain.byteLength)), plain);
    assert.deepEqual(zlib.inflateRawSync(coded, { dictionary: mcpDictionaryV1() }), plain);
    assert.throws(() => runtime.contentCodings.dictionary!.decode(coded, mcpDictionaryV1(), plain.byteLength - 1), { name: 'DecodedTooLargeError' });
  });
});

describe('content codings: negotiation rules', () => {
  it('reads q-values and * as RFC 9110 does', () => {
    assert.deepEqual(
      [...acceptedCodings('gzip, deflate;q=0.5, BR;q=0')],
      [
        ['gzip', 1],
        ['deflate', 0.5],
        ['br', 0],
      ],
    );
    assert.equal(negotiateCoding('gzip, deflate', ['zstd', 'br', 'gzip']), 'gzip', 'the stock clients (undici) get gzip');
    assert.equal(negotiateCoding('gzip, br, zstd', ['zstd', 'br', 'gzip']), 'zstd', 'equal q: the server order decides');
    assert.equal(negotiateCoding('zstd;q=0.5, gzip', ['zstd', 'br', 'gzip']), 'gzip', 'a higher q wins');
    assert.equal(negotiateCoding('br;q=0, *', ['br', 'gzip']), 'gzip', 'q=0 refuses; * covers the rest');
    assert.equal(negotiateCoding('identity', ['zstd', 'br', 'gzip']), undefined);
    assert.equal(negotiateCoding(null, ['gzip']), undefined, 'no header: no coding');
    assert.equal(negotiateCoding('compress', ['gzip']), undefined);
  });

  it('the last header parsed is remembered, never answering for another', () => {
    // Headers that alternate, and the same text as a new string each time (as every request brings it).
    const headers = ['gzip, br', 'br;q=0, gzip', 'zstd;q=0.5, gzip', 'gzip, br', `${'gzip'}, ${'br'}`, 'br;q=0, gzip'];
    const expected = ['br', 'gzip', 'gzip', 'br', 'br', 'gzip'];
    for (let round = 0; round < 2; round++) {
      for (const [i, header] of headers.entries()) assert.equal(negotiateCoding(header, ['zstd', 'br', 'gzip']), expected[i], header);
    }
    assert.equal(acceptedCodings('gzip, br').get('br'), 1);
    assert.equal(acceptedCodings('gzip, br;q=0').get('br'), 0);
    assert.equal(acceptedCodings(null).size, 0);
    assert.equal(acceptedCodings('gzip, br').get('br'), 1);
  });

  it('tells a body of native bytes by its pieces', () => {
    const segment = new Uint8Array(100);
    const bin = new Uint8Array(64 * 1024);
    assert.ok(mostlyNativeBytes([segment, bin, segment], 64 * 1024 + 200));
    assert.ok(!mostlyNativeBytes([new Uint8Array(200_000)], 200_000), 'one piece: no bin cut out');
    assert.ok(!mostlyNativeBytes([new Uint8Array(200_000), bin, segment], 200_000 + 64 * 1024 + 100), 'a small share of media');
  });

  it('resolves the option against the runtime', () => {
    const all = { encodes: ['zstd', 'br', 'gzip'] as ContentCoding[], encodesStreams: ['zstd', 'br', 'gzip'] as ContentCoding[], decodes: ['zstd', 'br', 'gzip'] as ContentCoding[] };
    const { streams, ...resolved } = resolveCompression(undefined, all);
    assert.deepEqual(resolved, {
      replies: 'auto',
      minBytes: 256,
      codings: all.encodes,
      favoredCodings: ['br', 'zstd', 'gzip'],
      streamCodings: all.encodes,
      requestCodings: all.decodes,
      dictionary: false,
    });
    assert.deepEqual(resolveCompression({ favor: 'cpu' }, all).favoredCodings, all.encodes, "'cpu': the codings in their order");
    assert.deepEqual(resolveCompression({ codings: ['zstd', 'gzip'] }, all).favoredCodings, ['zstd', 'gzip'], 'no br among the codings: their order');
    for (const favor of ['speed', 'Bytes', 1, true])
      assert.throws(
        () => resolveCompression({ favor: favor as never }, all),
        (error: unknown) => error instanceof TypeError && /compression\.favor must be 'bytes' or 'cpu'/.test(error.message),
        String(favor),
      );
    assert.throws(() => new McpHttpHandler({ createServer: () => createServer(new Gate()), compression: { favor: 'less' as never } }), TypeError, 'the handler refuses it at construction');
    assert.equal(resolveCompression(undefined, { ...all, dictionary: {} }).dictionary, true, 'where the runtime has it');
    assert.equal(resolveCompression({ dictionary: false }, { ...all, dictionary: {} }).dictionary, false);
    assert.equal(streams.max, 64);
    assert.throws(() => resolveCompression({ maxCodedStreams: Number.NaN }, all), /maxCodedStreams/);
    assert.deepEqual(resolveCompression(false, all).requestCodings, [], 'off: coded requests are refused');
    assert.deepEqual(resolveCompression({ codings: ['gzip', 'zstd'] }, { ...all, encodes: ['br', 'gzip'] }).codings, ['gzip'], 'only what the runtime has');
    assert.throws(() => resolveCompression({ minBytes: -1 }, all), /minBytes/);
  });

  it('codes a one-body reply at the level its size tier documents (zstd 9 from 64 KiB, Brotli 5 from 8 KiB), and back', async () => {
    const zstdLevel = (zlib.constants as Record<string, number>).ZSTD_c_compressionLevel;
    const zstdSync = (zlib as unknown as { zstdCompressSync?: (bytes: Uint8Array, options: object) => Uint8Array }).zstdCompressSync;
    const brotli = (bytes: Uint8Array, quality: number) =>
      zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength } });
    const expected: Array<[ContentCoding, number, (bytes: Uint8Array) => Uint8Array | undefined]> = [
      ['zstd', 2000, (bytes) => zstdSync?.(bytes, { params: { [zstdLevel!]: 3 } })],
      ['zstd', 20_000, (bytes) => zstdSync?.(bytes, { params: { [zstdLevel!]: 3 } })],
      ['zstd', 100_000, (bytes) => zstdSync?.(bytes, { params: { [zstdLevel!]: 9 } })],
      ['br', 2000, (bytes) => brotli(bytes, 4)],
      ['br', 20_000, (bytes) => brotli(bytes, 5)],
      ['br', 100_000, (bytes) => brotli(bytes, 5)],
    ];
    for (const [coding, size, reference] of expected) {
      if (!runtime.contentCodings.encodes.includes(coding)) continue;
      const plain = new TextEncoder().encode(prose(size));
      const coded = new Uint8Array(await runtime.contentCodings.encode(coding, plain));
      assert.deepEqual(coded, new Uint8Array(reference(plain)!), `${coding} at ${plain.byteLength} bytes codes as the level its tier names`);
      assert.deepEqual(new Uint8Array(await runtime.contentCodings.decode(coding, coded, plain.byteLength)), plain, `${coding} round trip at ${plain.byteLength} bytes`);
    }
  });

  it('decodes within a cap, refusing a ratio bomb while inflating', async () => {
    for (const coding of runtime.contentCodings.decodes) {
      const bomb = await runtime.contentCodings.encode(coding, new Uint8Array(8 << 20));
      assert.ok(bomb.byteLength < 64 * 1024, `${coding} bomb is ${bomb.byteLength} bytes`);
      await assert.rejects(async () => runtime.contentCodings.decode(coding, bomb, 1 << 20), { name: 'DecodedTooLargeError' }, coding);
      const plain = new TextEncoder().encode(prose(4000));
      const coded = await runtime.contentCodings.encode(coding, plain);
      assert.deepEqual(new Uint8Array(await runtime.contentCodings.decode(coding, coded, plain.byteLength)), plain, `${coding} round trip at exactly the cap`);
    }
  });
});

describe(`content codings: the default, through handle() (any fetch runtime's entry; ${runtime.name})`, () => {
  it("'auto' codes for a client that asks unless the request came in on a loopback address", async () => {
    const handler = new McpHttpHandler({ createServer: () => createServer(new Gate()), stateless: true, enableJsonResponse: true });
    cleanups.push(() => handler.close());
    const request = () =>
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: { host: 'localhost', 'content-type': 'application/json', accept: JSON_ACCEPT, 'accept-encoding': 'gzip', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify(callTool(1, 'text', { bytes: 20_000 })),
      });
    for (const [localAddress, coded] of [
      ['10.1.2.3', true],
      [undefined, true],
      ['127.0.0.1', false],
      ['::1', false],
    ] as const) {
      const response = await handler.handle(request(), { localAddress });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-encoding'), coded ? 'gzip' : null, String(localAddress));
      const bytes = new Uint8Array(await response.arrayBuffer());
      const text = coded ? zlib.gunzipSync(bytes).toString() : new TextDecoder().decode(bytes);
      assert.match(text, /"id":1/);
    }
  });
});

for (const kind of serverKinds) {
  describe(`content codings: server replies (${kind}, ${runtime.name})`, { timeout: 60_000 }, () => {
    it('on loopback by default: no coding, but Vary names Accept-Encoding', async () => {
      const url = await serve(kind);
      const response = await post(url, 'json', callTool(1, 'text', { bytes: 20_000 }), 'gzip, deflate, br');
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-encoding'), null);
      assert.match(response.headers.get('vary') ?? '', /Accept-Encoding/);
      await response.text();
    });

    for (const wire of ['json', 'msgpack'] as const) {
      for (const coding of codings) {
        it(`${wire}: a one-body reply over the threshold in ${coding}, as asked; smaller ones and clients that do not ask as they are`, async () => {
          const url = await serve(kind, { compression: true, enableJsonResponse: true });
          const headers = {
            'content-type': wire === 'json' ? 'application/json' : 'application/msgpack',
            accept: wire === 'json' ? JSON_ACCEPT : MSGPACK_CLIENT_ACCEPT,
            'accept-encoding': `${coding}, identity;q=0.5`,
          };
          const body = wire === 'json' ? JSON.stringify(callTool(1, 'text', { bytes: 30_000 })) : new CanonicalEncoder().encode(callTool(1, 'text', { bytes: 30_000 }));
          const large = await rawPost(url, headers, body);
          assert.equal(large.status, 200);
          assert.equal(large.headers['content-encoding'], coding);
          assert.match(String(large.headers.vary), /Accept-Encoding/);
          assert.equal(Number(large.headers['content-length'] ?? large.body.byteLength), large.body.byteLength);
          assert.ok(large.body.byteLength < 15_000, `${large.body.byteLength} coded bytes for a 30 KB text`);
          const plain = rawDecode(coding, large.body);
          assert.ok(plain.byteLength > 30_000);
          assert.ok(String(large.headers['accept-encoding']).includes(coding), 'says which codings it takes in requests (RFC 7694)');
          // Once: a reply whose headers were read once went out with Accept-Encoding twice (node:http joins repeats).
          assert.equal(String(large.headers['accept-encoding']).split(',').length, runtime.contentCodings.decodes.length, String(large.headers['accept-encoding']));
          const small = await rawPost(url, headers, wire === 'json' ? JSON.stringify(callTool(2, 'text', { bytes: 100 })) : new CanonicalEncoder().encode(callTool(2, 'text', { bytes: 100 })));
          assert.equal(small.headers['content-encoding'], undefined, 'under minBytes');
          const notAsked = await rawPost(url, { ...headers, 'accept-encoding': 'identity' }, body);
          assert.equal(notAsked.headers['content-encoding'], undefined);
        });
      }

      it(`${wire}: favor 'bytes' (default) codes a reply of 8-64 KiB in br where the client takes it; 'cpu' and other sizes in the codings' order`, async () => {
        const headers = (acceptEncoding: string) => wireHeaders(wire, acceptEncoding);
        const request = (id: number, bytes: number) => textCall(wire, id, bytes);
        const all = codings.join(', ');
        const first = codings[0]!;
        const byDefault = await serve(kind, { compression: true, enableJsonResponse: true });
        const cpu = await serve(kind, { compression: { replies: true, favor: 'cpu' }, enableJsonResponse: true });
        const cases: Array<[URL, string, number, string]> = [
          [byDefault, all, 2000, first],
          [byDefault, all, 7000, first],
          [byDefault, all, 20_000, 'br'],
          [byDefault, all, 60_000, 'br'],
          [byDefault, all, 100_000, first],
          [byDefault, 'gzip', 20_000, 'gzip'],
          [byDefault, `${first}, br;q=0.5, gzip`, 20_000, first === 'br' ? 'br' : first],
          [cpu, all, 2000, first],
          [cpu, all, 20_000, first],
          [cpu, all, 100_000, first],
        ];
        for (const [index, [url, acceptEncoding, bytes, expected]] of cases.entries()) {
          const reply = await rawPost(url, headers(acceptEncoding), request(index + 1, bytes));
          const label = `${url === cpu ? 'cpu' : 'default'}, ${acceptEncoding}, ${bytes} bytes`;
          assert.equal(reply.headers['content-encoding'], expected, label);
          const plain = rawDecode(expected, reply.body);
          const message = (wire === 'json' ? JSON.parse(plain.toString()) : new MsgpackDecoder().decode(plain).value) as { id: number; result: { content: { text: string }[] } };
          assert.equal(message.id, index + 1, label);
          assert.equal(message.result.content[0]!.text, prose(bytes), label);
        }
      });

      it(`${wire}: a small reply in ${MCP_DICTIONARY_CODING} to a client that names it; not for \`*\`, nor past 4 KiB`, async () => {
        const url = await serve(kind, { compression: true, enableJsonResponse: true });
        const headers = (acceptEncoding: string) => wireHeaders(wire, acceptEncoding);
        const request = (id: number, bytes: number) => textCall(wire, id, bytes);
        const small = await rawPost(url, headers(`${MCP_DICTIONARY_CODING}, gzip`), request(1, 150));
        assert.equal(small.headers['content-encoding'], MCP_DICTIONARY_CODING, "under minBytes, but over the dictionary coding's 96 bytes");
        const plain = zlib.inflateRawSync(small.body, { dictionary: readFileSync(new URL('fixtures/dictionary/mcp-dictionary-v1.bin', repoRoot)) });
        const reply = (wire === 'json' ? JSON.parse(plain.toString()) : new MsgpackDecoder().decode(plain).value) as { result: { content: { text: string }[] } };
        assert.equal(reply.result.content[0]!.text, prose(150));
        assert.ok(small.body.byteLength < plain.byteLength / 2, `${small.body.byteLength} coded bytes for ${plain.byteLength}`);
        const any = await rawPost(url, headers('*'), request(2, 600));
        assert.notEqual(any.headers['content-encoding'], MCP_DICTIONARY_CODING, '`*` does not cover it: a stock client cannot decode it');
        const large = await rawPost(url, headers(`${MCP_DICTIONARY_CODING}, gzip`), request(3, 20_000));
        assert.equal(large.headers['content-encoding'], 'gzip', 'past 4 KiB, the standard coding');
        const off = await serve(kind, { compression: { replies: true, dictionary: false }, enableJsonResponse: true });
        const notUsed = await rawPost(off, headers(`${MCP_DICTIONARY_CODING}, gzip`), request(4, 600));
        assert.equal(notUsed.headers['content-encoding'], 'gzip', 'dictionary: false');
      });

      it(`${wire}: large replies of multi-byte text, several at once, each decode to exactly its reply (the text encoded once for the coder, in a pooled buffer)`, async () => {
        const url = await serve(kind, { compression: true, enableJsonResponse: true });
        const coding = codings[0]!;
        const headers = { 'content-type': wire === 'json' ? 'application/json' : 'application/msgpack', accept: wire === 'json' ? JSON_ACCEPT : MSGPACK_CLIENT_ACCEPT, 'accept-encoding': coding };
        const sizes = [30_000, 90_000, 200_000, 90_001];
        const replies = await Promise.all(
          sizes.map((units, seed) => {
            const message = callTool(seed + 1, 'unicode', { units, seed });
            return rawPost(url, headers, wire === 'json' ? JSON.stringify(message) : new CanonicalEncoder().encode(message));
          }),
        );
        for (const [seed, reply] of replies.entries()) {
          assert.equal(reply.headers['content-encoding'], coding);
          const plain = rawDecode(coding, reply.body);
          const message = (wire === 'json' ? JSON.parse(plain.toString('utf8')) : new MsgpackDecoder().decode(plain).value) as { id: number; result: { content: { text: string }[] } };
          assert.equal(message.id, seed + 1);
          assert.equal(message.result.content[0]!.text, unicodeText(sizes[seed]!, seed), `reply ${seed + 1}`);
        }
      });

      it(`${wire}: a reply stream is coded with a flush per event: event 1 arrives before the server sends event 2`, async () => {
        for (const coding of runtime.contentCodings.encodesStreams) {
          const gate = new Gate();
          const url = await serve(kind, { compression: true }, gate);
          const response = await post(url, wire, callTool(7, 'gated', {}), coding);
          assert.equal(response.status, 200);
          assert.equal(response.headers.get('content-encoding'), coding);
          // The fetch decodes; the first event can only arrive if the server flushed it on its own.
          const events = streamEvents(response.body!, wire);
          const first = await events.next();
          assert.equal(first.value?.message?.method, 'notifications/progress', coding);
          assert.equal(first.value?.message?.params?.progress, 1);
          gate.open();
          const rest = [];
          for await (const event of events) if (event.message) rest.push(event.message);
          assert.equal(rest[0]?.params?.progress, 2);
          const last = rest.at(-1)!;
          assert.equal(last.id, 7);
          assert.equal((last.result as { content: { text: string }[] }).content[0]!.text.length, 5000, coding);
        }
      });
    }

    it('past maxCodedStreams, a stream goes uncoded; a slot comes back when a coded stream ends', async () => {
      const gate = new Gate();
      const url = await serve(kind, { compression: { replies: true, maxCodedStreams: 1 } }, gate);
      const coding = runtime.contentCodings.encodesStreams.at(-1)!;
      const first = await post(url, 'json', callTool(11, 'gated', {}), coding);
      assert.equal(first.headers.get('content-encoding'), coding);
      const firstEvents = streamEvents(first.body!, 'json');
      await firstEvents.next();
      const second = await post(url, 'json', callTool(12, 'gated', {}), coding);
      assert.equal(second.headers.get('content-encoding'), null, 'the cap of one is taken');
      const secondEvents = streamEvents(second.body!, 'json');
      await secondEvents.next();
      gate.open();
      for await (const _ of firstEvents);
      for await (const _ of secondEvents);
      const third = await post(url, 'json', callTool(13, 'gated', {}), coding);
      assert.equal(third.headers.get('content-encoding'), coding, 'the first one ended: its slot is free');
      for await (const _ of streamEvents(third.body!, 'json'));
    });

    it('media (native bytes) go uncoded: compressed already', async () => {
      // Native bytes are negotiated per session (never stateless): a session of its own.
      const url = await serve(kind, { compression: true, enableJsonResponse: true, stateless: false });
      const init = await rawPost(
        url,
        { 'content-type': 'application/msgpack', accept: MSGPACK_CLIENT_ACCEPT, 'accept-encoding': 'gzip' },
        new CanonicalEncoder().encode({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { ...INIT_PARAMS, capabilities: { experimental: { 'mcp-msgpack/native-bytes': { version: 1 } } } } }),
      );
      assert.equal(init.status, 200);
      const session = { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-11-25' };
      const msgpackHeaders = { 'content-type': 'application/msgpack', accept: MSGPACK_CLIENT_ACCEPT, 'accept-encoding': 'gzip', ...session };
      await rawPost(url, msgpackHeaders, new CanonicalEncoder().encode({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      const image = await rawPost(url, msgpackHeaders, new CanonicalEncoder().encode(callTool(3, 'image', { bytes: 200_000 })));
      assert.equal(image.status, 200);
      assert.equal(image.headers['content-encoding'], undefined);
      assert.ok(image.body.byteLength > 200_000 && image.body.byteLength < 201_000, `${image.body.byteLength} bytes: the image as bin, not base64`);
    });
  });

  describe(`content codings: request bodies (${kind}, ${runtime.name})`, { timeout: 60_000 }, () => {
    const text = prose(50_000);
    const message = { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'echo-length', arguments: { text } } };
    const headers = (coding: string) => ({ 'content-type': 'application/json', accept: JSON_ACCEPT, 'content-encoding': coding, 'mcp-protocol-version': '2025-11-25' });

    it('takes a body in each coding it decodes, and refuses a coding it does not (415, naming what it takes)', async () => {
      const url = await serve(kind, { enableJsonResponse: true });
      for (const coding of runtime.contentCodings.decodes) {
        const body = await runtime.contentCodings.encode(coding, new TextEncoder().encode(JSON.stringify(message)));
        const reply = await rawPost(url, headers(coding), body);
        assert.equal(reply.status, 200, coding);
        assert.match(reply.body.toString(), /"text":"50000"/);
      }
      const refused = await rawPost(url, headers('compress'), 'x');
      assert.equal(refused.status, 415);
      assert.equal(refused.headers['accept-encoding'], runtime.contentCodings.decodes.join(', '));
    });

    it('with compression off, a coded body is 415 with Accept-Encoding: identity, as before', async () => {
      const url = await serve(kind, { enableJsonResponse: true, compression: false });
      const reply = await rawPost(url, headers('gzip'), zlib.gzipSync(JSON.stringify(message)));
      assert.equal(reply.status, 415);
      assert.equal(reply.headers['accept-encoding'], 'identity');
    });

    it('bombs and broken codings: 413 past the body cap once decoded, 400 for truncated or corrupt input; the server goes on', async () => {
      const url = await serve(kind, { enableJsonResponse: true, maxMessageBytes: 1 << 20 });
      for (const coding of runtime.contentCodings.decodes) {
        const bomb = await runtime.contentCodings.encode(coding, new TextEncoder().encode(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${' '.repeat(16 << 20)}"}}`));
        const big = await rawPost(url, headers(coding), bomb);
        assert.equal(big.status, 413, `${coding} bomb of ${bomb.byteLength} bytes`);
        assert.match(big.body.toString(), /once decoded/);
        const good = await runtime.contentCodings.encode(coding, new TextEncoder().encode(JSON.stringify(message)));
        const truncated = await rawPost(url, headers(coding), good.subarray(0, good.byteLength - 10));
        assert.equal(truncated.status, 400, `${coding} truncated`);
        const corrupt = Uint8Array.from(good);
        for (let i = 12; i < corrupt.byteLength - 8; i += 7) corrupt[i]! ^= 0x5a;
        const broken = await rawPost(url, headers(coding), corrupt);
        assert.equal(broken.status, 400, `${coding} corrupt`);
      }
      const after = await rawPost(url, headers('gzip'), zlib.gzipSync(JSON.stringify(message)));
      assert.equal(after.status, 200);
    });
  });

  describe(`content codings: clients (${kind}, ${runtime.name})`, { timeout: 60_000 }, () => {
    it('our client offers what its fetch decodes, reads coded replies and streams, and codes large requests once the server takes a coding', async () => {
      const gate = new Gate();
      const url = await serve(kind, { compression: true }, gate);
      const seen: { accept: string | null; coding: string | null }[] = [];
      const replyCodings: (string | null)[] = [];
      const transport = new HttpMsgpackClientTransport(url, {
        fetch: async (target, init) => {
          const headers = new Headers(init?.headers);
          if (init?.method === 'POST') seen.push({ accept: headers.get('accept-encoding'), coding: headers.get('content-encoding') });
          const response = await fetch(target, init);
          replyCodings.push(response.headers.get('content-encoding'));
          return response;
        },
      });
      const client = new Client({ name: 'coding', version: '1' });
      await client.connect(transport);
      const result = await client.callTool({ name: 'text', arguments: { bytes: 40_000 } });
      assert.equal((result.content as { text: string }[])[0]!.text, prose(40_000));
      const expected = runtime.contentCodings.fetchDecodes.filter((coding) => coding !== 'zstd');
      assert.equal(seen[0]!.accept, [MCP_DICTIONARY_CODING, ...expected].join(', '), "a caller's fetch is offered br and gzip (and the dictionary coding, which the client decodes itself)");
      assert.ok(replyCodings.includes(expected[0]!), `a reply came coded: ${replyCodings.join()}`);
      const echoed = await client.callTool({ name: 'echo-length', arguments: { text: prose(20_000) } });
      assert.equal((echoed.content as { text: string }[])[0]!.text, '20000');
      assert.equal(seen.at(-1)!.coding, runtime.contentCodings.encodes[0], 'the large request went coded, in the best coding the server takes');
      const progress: number[] = [];
      const gated = client.callTool({ name: 'gated', arguments: {} }, undefined, {
        onprogress: (p) => {
          progress.push(p.progress);
          if (p.progress === 1) gate.open();
        },
      });
      await gated;
      assert.deepEqual(progress, [1, 2]);
      await client.close();
    });

    it('in a session, only the opening reply says which codings requests may use; the client remembers it, and small replies come in the dictionary coding', async () => {
      const url = await serve(kind, { compression: true, stateless: false });
      const replies: { method: string; acceptEncoding: string | null; coding: string | null }[] = [];
      const sentCodings: (string | null)[] = [];
      const transport = new HttpMsgpackClientTransport(url, {
        fetch: async (target, init) => {
          const response = await fetch(target, init);
          if (init?.method === 'POST') {
            sentCodings.push(new Headers(init.headers).get('content-encoding'));
            replies.push({
              method: new Headers(init.headers).has('mcp-session-id') ? 'in-session' : 'opening',
              acceptEncoding: response.headers.get('accept-encoding'),
              coding: response.headers.get('content-encoding'),
            });
          }
          return response;
        },
      });
      const client = new Client({ name: 'coding', version: '1' });
      await client.connect(transport);
      const small = await client.callTool({ name: 'text', arguments: { bytes: 400 } });
      assert.equal((small.content as { text: string }[])[0]!.text, prose(400));
      const echoed = await client.callTool({ name: 'echo-length', arguments: { text: prose(20_000) } });
      assert.equal((echoed.content as { text: string }[])[0]!.text, '20000');
      assert.equal(replies[0]!.method, 'opening');
      assert.equal(replies[0]!.acceptEncoding, runtime.contentCodings.decodes.join(', '), 'the opening reply says what the server takes');
      const inSession = replies.slice(1);
      assert.ok(inSession.length >= 3, JSON.stringify(replies));
      for (const reply of inSession) assert.equal(reply.acceptEncoding, null, `said once per session: ${JSON.stringify(replies)}`);
      assert.equal(inSession.at(-2)!.coding, MCP_DICTIONARY_CODING, `a reply of about 500 bytes comes in the dictionary coding: ${JSON.stringify(replies)}`);
      assert.equal(sentCodings.at(-1), runtime.contentCodings.encodes[0], 'the large request went coded: learnt from the opening reply');
      await client.close();
    });

    it('the default fetch is offered every coding the runtime decodes', async () => {
      const url = await serve(kind, { compression: true });
      const transport = new HttpMsgpackClientTransport(url);
      const client = new Client({ name: 'coding', version: '1' });
      await client.connect(transport);
      const result = await client.callTool({ name: 'text', arguments: { bytes: 40_000 } });
      assert.equal((result.content as { text: string }[])[0]!.text.length, 40_000);
      await client.close();
    });

    it("a reply of 8-64 KiB comes in br (favor: 'bytes', the default) to our client and to the SDK's own client that asks br, and decodes intact", async () => {
      const url = await serve(kind, { compression: true });
      const replyCodings: (string | null)[] = [];
      const watching = (ask?: string) => async (target: string | URL | Request, init?: RequestInit) => {
        const headers = new Headers(init?.headers);
        if (ask !== undefined) headers.set('accept-encoding', ask);
        const response = await fetch(target, { ...init, headers });
        replyCodings.push(response.headers.get('content-encoding'));
        return response;
      };
      const ours = new Client({ name: 'ours', version: '1' });
      await ours.connect(new HttpMsgpackClientTransport(url, { fetch: watching() }));
      const mine = await ours.callTool({ name: 'unicode', arguments: { units: 20_000, seed: 3 } });
      assert.equal((mine.content as { text: string }[])[0]!.text, unicodeText(20_000, 3));
      assert.equal(replyCodings.at(-1), 'br', `our client's fetch takes br: ${replyCodings.join()}`);
      await ours.close();
      const stock = new Client({ name: 'stock', version: '1' });
      await stock.connect(new StreamableHTTPClientTransport(url, { fetch: watching('gzip, deflate, br') }));
      const theirs = await stock.callTool({ name: 'unicode', arguments: { units: 20_000, seed: 4 } });
      assert.equal((theirs.content as { text: string }[])[0]!.text, unicodeText(20_000, 4));
      assert.equal(replyCodings.at(-1), 'br', `the stock client asked br: ${replyCodings.join()}`);
      await stock.close();
    });

    it("the SDK's own client (undici: gzip, deflate) works with compression on", async () => {
      const url = await serve(kind, { compression: true });
      const client = new Client({ name: 'stock', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(url));
      const result = await client.callTool({ name: 'text', arguments: { bytes: 40_000 } });
      assert.equal((result.content as { text: string }[])[0]!.text.length, 40_000);
      await client.close();
    });
  });
}

describe(`content codings: hostile servers against our client (${runtime.name})`, { timeout: 60_000 }, () => {
  /** A server that answers every POST with `reply` (its body and headers) after an initialize. */
  async function hostile(reply: (count: number) => { headers: Record<string, string>; body: Uint8Array | string }): Promise<URL> {
    let count = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const { headers, body } = reply(count++);
        res.writeHead(200, headers);
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
    return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  }

  const initReply = JSON.stringify({ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'h', version: '1' } } });

  async function firstReplyError(url: URL, maxMessageBytes: number): Promise<Error> {
    const transport = new HttpMsgpackClientTransport(url, { wire: 'json', maxMessageBytes });
    cleanups.push(() => transport.close());
    const errors: Error[] = [];
    transport.onerror = (error) => errors.push(error);
    await transport.start();
    try {
      await transport.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INIT_PARAMS });
    } catch (error) {
      return error as Error;
    }
    assert.fail(`no error; onerror saw ${errors.map((e) => e.message).join('; ')}`);
  }

  for (const coding of runtime.contentCodings.fetchDecodes) {
    it(`a ${coding} ratio bomb is refused at the body cap, counted while decoding`, async () => {
      const bomb = await runtime.contentCodings.encode(coding, new TextEncoder().encode(`{"jsonrpc":"2.0","id":0,"result":{"pad":"${' '.repeat(32 << 20)}"}}`));
      const url = await hostile(() => ({ headers: { 'content-type': 'application/json', 'content-encoding': coding }, body: bomb }));
      const error = await firstReplyError(url, 1 << 20);
      assert.match(error.message, /over the client's maxMessageBytes cap of 1048576 bytes/);
    });
  }

  it('a coded event stream whose one event decodes past the cap ends in a stream error, counted while decoding', async () => {
    const event = `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"${' '.repeat(4 << 20)}"}}\n\n`;
    const url = await hostile(() => ({ headers: { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' }, body: zlib.gzipSync(event) }));
    const transport = new HttpMsgpackClientTransport(url, { wire: 'json', maxMessageBytes: 1 << 20 });
    cleanups.push(() => transport.close());
    const errors: Error[] = [];
    const delivered: unknown[] = [];
    transport.onerror = (error) => errors.push(error);
    transport.onmessage = (message) => delivered.push(message);
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INIT_PARAMS });
    await waitUntil(() => errors.length > 0, 'the stream error');
    assert.match(errors[0]!.message, /1048576/);
    assert.deepEqual(delivered, [], 'nothing of the oversized event was delivered');
  });

  it('a reply in a coding the client did not offer is refused', async () => {
    const url = await hostile(() => ({ headers: { 'content-type': 'application/json', 'content-encoding': 'compress' }, body: initReply }));
    const error = await firstReplyError(url, 1 << 20);
    assert.match(error.message, /content coding: a reply in compress, which the client did not offer/);
  });

  it(`${MCP_DICTIONARY_CODING}: a ratio bomb is refused at the body cap while decoding; a corrupt one, or one on a stream, is an error`, async () => {
    const dictionary = runtime.contentCodings.dictionary!;
    const bomb = dictionary.encode(new TextEncoder().encode(`{"jsonrpc":"2.0","id":0,"result":{"pad":"${' '.repeat(32 << 20)}"}}`), mcpDictionaryV1());
    assert.ok(bomb.byteLength < 64 * 1024, `${bomb.byteLength} coded bytes`);
    const bombing = await hostile(() => ({ headers: { 'content-type': 'application/json', 'content-encoding': MCP_DICTIONARY_CODING }, body: bomb }));
    assert.match((await firstReplyError(bombing, 1 << 20)).message, /over the client's maxMessageBytes cap of 1048576 bytes/);
    const coded = Uint8Array.from(dictionary.encode(new TextEncoder().encode(initReply), mcpDictionaryV1()));
    for (let i = 2; i < coded.byteLength; i += 3) coded[i]! ^= 0x5a;
    const broken = await hostile(() => ({ headers: { 'content-type': 'application/json', 'content-encoding': MCP_DICTIONARY_CODING }, body: coded }));
    assert.match((await firstReplyError(broken, 1 << 20)).message, /mcp-dict-v1|JSON|parse|Unexpected/i);
    const event = new TextEncoder().encode(`event: message\ndata: ${initReply}\n\n`);
    const streamed = await hostile(() => ({ headers: { 'content-type': 'text/event-stream', 'content-encoding': MCP_DICTIONARY_CODING }, body: dictionary.encode(event, mcpDictionaryV1()) }));
    assert.match((await firstReplyError(streamed, 1 << 20)).message, /on a stream/);
  });

  it('a truncated or corrupt coded reply is an error, not a message', async () => {
    const coded = zlib.gzipSync(initReply);
    const truncated = await hostile(() => ({ headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: coded.subarray(0, coded.byteLength - 12) }));
    await firstReplyError(truncated, 1 << 20);
    const corrupt = Uint8Array.from(coded);
    for (let i = 12; i < corrupt.byteLength - 8; i += 5) corrupt[i]! ^= 0x5a;
    const broken = await hostile(() => ({ headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: corrupt }));
    await firstReplyError(broken, 1 << 20);
  });
});
