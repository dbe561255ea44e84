// The native-bytes extension over Streamable HTTP: per session, on node:http (and Bun.serve under bun).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { HttpMsgpackClientTransport, McpHttpHandler, NATIVE_BYTES_CAPABILITY, callToolNative, listenBun, listenNode, nativeBytesPlaceholders, readResourceNative } from 'mcp-msgpack-transport';
import { countBase64, createMediaClient, withTimeout } from './fixtures/native-helpers.js';
import { createNativeServer, digest, mediaBytes } from './fixtures/native-tools.js';

const MiB = 1024 * 1024;
const SIZE = 5 * MiB;
const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';
const kinds = isBun ? (['node:http', 'Bun.serve'] as const) : (['node:http'] as const);
const cleanups: (() => Promise<void>)[] = [];

async function serve(kind: (typeof kinds)[number], stateless = false): Promise<URL> {
  const handler = new McpHttpHandler({ createServer: createNativeServer, nativeBytes: true, stateless });
  const running = kind === 'Bun.serve' ? await listenBun(handler) : await listenNode(handler);
  cleanups.push(() => running.close());
  return running.url;
}

/** fetch that counts the bytes of every response body (read from a clone, so the client is not slowed). */
function countingFetch(counter: { bytes: number; types: string[] }): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(input, init);
    if (response.body && init?.method === 'POST') {
      counter.types.push(response.headers.get('content-type') ?? '');
      const copy = response.clone();
      void copy.arrayBuffer().then(
        (b) => (counter.bytes += b.byteLength),
        () => {},
      );
    }
    return response;
  }) as typeof fetch;
}

async function connect(transport: Transport, answerBytes = 1000): Promise<Client> {
  const { client } = createMediaClient(answerBytes);
  cleanups.push(() => client.close());
  await withTimeout(client.connect(transport), 10_000, 'connect over HTTP');
  return client;
}

function imageData(result: unknown): unknown {
  return (result as { content: { type: string; data?: unknown }[] }).content.find((b) => b.type === 'image')?.data;
}

function sameBytes(actual: unknown, expected: Uint8Array): boolean {
  return actual instanceof Uint8Array && Buffer.from(actual.buffer, actual.byteOffset, actual.length).equals(expected);
}

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => {});
});

for (const kind of kinds) {
  describe(`native bytes over HTTP (${kind})`, { timeout: 120_000 }, () => {
    const expected = mediaBytes(SIZE);
    const base64 = Buffer.from(expected).toString('base64');

    it('negotiated per session: a 5 MiB image as one bin, bytes and base64 identical', async () => {
      const url = await serve(kind);
      const counter = { bytes: 0, types: [] as string[] };
      const client = await connect(new HttpMsgpackClientTransport(url, { nativeBytes: true, fetch: countingFetch(counter) }));
      assert.deepEqual(client.getServerCapabilities()?.experimental?.[NATIVE_BYTES_CAPABILITY], { version: 1 });
      const before = counter.bytes;
      // Server and client share this process: neither may do any base64 on the negotiated path.
      const { result: native, calls } = await countBase64(() => callToolNative(client, { name: 'image', arguments: { bytes: SIZE } }));
      assert.ok(sameBytes(imageData(native), expected));
      assert.deepEqual(calls, []);
      // The counting clone may finish a moment after the client.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const wire = counter.bytes - before;
      assert.ok(wire >= SIZE && wire < SIZE + 4096, `the response carried ${wire} bytes for a ${SIZE}-byte image`);
      assert.ok(
        counter.types.filter((t) => t !== '').every((t) => t.includes('msgpack')),
        counter.types.join(', '),
      );
      assert.equal(imageData(await client.callTool({ name: 'image', arguments: { bytes: SIZE } })), base64);
      const resource = await readResourceNative(client, { uri: `media://image/${MiB}` });
      assert.ok(sameBytes((resource.contents[0] as { blob: unknown }).blob, mediaBytes(MiB, 6)));
    });

    it('sampling with images both ways over the session', async () => {
      const url = await serve(kind);
      const client = await connect(new HttpMsgpackClientTransport(url, { nativeBytes: true }), 300_000);
      for (const native of [false, true]) {
        const result = await client.callTool({ name: 'sample-image', arguments: { bytes: MiB, native } });
        const report = JSON.parse((result.content as { text: string }[])[0]!.text);
        assert.deepEqual(report, { kind: native ? 'bytes' : 'string', digest: digest(mediaBytes(300_000, 9)) });
      }
    });

    for (const [name, make] of [
      ['JSON wire client', (url: URL) => new HttpMsgpackClientTransport(url, { nativeBytes: true, wire: 'json' })],
      ['msgpack client without the extension', (url: URL) => new HttpMsgpackClientTransport(url)],
      ['stock SDK Streamable HTTP client', (url: URL) => new StreamableHTTPClientTransport(url)],
    ] as const) {
      it(`${name}: base64, same bytes`, async () => {
        const url = await serve(kind);
        const client = await connect(make(url));
        assert.equal(client.getServerCapabilities()?.experimental?.[NATIVE_BYTES_CAPABILITY], undefined);
        assert.equal(imageData(await client.callTool({ name: 'image', arguments: { bytes: SIZE } })), base64);
        assert.ok(sameBytes(imageData(await callToolNative(client, { name: 'image', arguments: { bytes: SIZE } })), expected));
      });
    }

    it("a stateless server never confirms, and still sends the helpers' media as base64", async () => {
      const url = await serve(kind, true);
      const client = await connect(new HttpMsgpackClientTransport(url, { nativeBytes: true }));
      assert.equal(client.getServerCapabilities()?.experimental?.[NATIVE_BYTES_CAPABILITY], undefined);
      assert.equal(imageData(await client.callTool({ name: 'image', arguments: { bytes: 70_000 } })), Buffer.from(mediaBytes(70_000)).toString('base64'));
      assert.deepEqual(nativeBytesPlaceholders.size, { entries: 0, bytes: 0 });
    });
  });
}

describe("native bytes against the SDK's own Streamable HTTP server", { timeout: 60_000 }, () => {
  it('the offer goes out on MessagePack, the 415 sends the client to JSON without it, and base64 works', async () => {
    const transports = new Map<string, StreamableHTTPServerTransport>();
    const seenCapabilities: unknown[] = [];
    const http = createServer(async (req, res) => {
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? transports.get(id) : undefined;
      if (!transport) {
        const made = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (sessionId) => void transports.set(sessionId, made) });
        const server = createNativeServer();
        server.server.oninitialized = () => seenCapabilities.push(server.server.getClientCapabilities());
        await server.connect(made);
        transport = made;
      }
      await transport.handleRequest(req, res);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      for (const transport of transports.values()) await transport.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    });
    const url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
    const transport = new HttpMsgpackClientTransport(url, { nativeBytes: true });
    const client = await connect(transport);
    assert.equal(transport.wire, 'json');
    assert.equal(client.getServerCapabilities()?.experimental?.[NATIVE_BYTES_CAPABILITY], undefined);
    assert.deepEqual(
      seenCapabilities.map((c) => (c as { experimental?: unknown }).experimental),
      [undefined],
      'not offered on JSON',
    );
    const bytes = 200_000;
    const plain = await client.callTool({ name: 'cached-image-base64', arguments: { bytes } });
    assert.equal(imageData(plain), Buffer.from(mediaBytes(bytes)).toString('base64'));
    const native = await callToolNative(client, { name: 'cached-image-base64', arguments: { bytes } });
    assert.ok(sameBytes(imageData(native), mediaBytes(bytes)));
  });
});
