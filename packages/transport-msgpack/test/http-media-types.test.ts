// The two names of MessagePack over HTTP (SPEC.md 9.1): `application/msgpack`, which this wire has always
// sent, and IANA's `application/vnd.msgpack` (registered 2024). Both are read as one, in both directions;
// this package still sends `application/msgpack`, the only name a 0.1.0 peer reads.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { decode } from '@msgpack/msgpack';
import { HttpMsgpackClientTransport, McpHttpHandler, callToolNative, listenBun, listenNode } from 'mcp-msgpack-transport';
import { CanonicalEncoder } from 'mcp-msgpack-transport/wire';
// Internal (not exported): tests import such modules by relative path to the sources, compiled with them.
import { mediaTypeEssence } from '../src/http/media.js';
import { acceptsPerMessage, bodyEncoding, postReplyEncoding } from '../src/http/server/exchange/incoming-post.js';
import { prefersMsgpack } from '../src/http/server/exchange/responses.js';
import { createMediaClient, withTimeout } from './fixtures/native-helpers.js';
import { createNativeServer, mediaBytes } from './fixtures/native-tools.js';

const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';
const kinds = isBun ? (['node:http', 'Bun.serve'] as const) : (['node:http'] as const);
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => {});
});

const IANA_ACCEPT = 'application/vnd.msgpack, application/vnd.mcp-msgpack.stream, application/json, text/event-stream';

describe('media types: application/vnd.msgpack read as application/msgpack', () => {
  it('in a Content-Type, with its v parameter', () => {
    assert.equal(mediaTypeEssence('application/vnd.msgpack'), 'application/msgpack');
    assert.equal(mediaTypeEssence('Application/VND.msgpack; v=1'), 'application/msgpack');
    assert.equal(bodyEncoding('application/vnd.msgpack'), 'msgpack');
    assert.equal(bodyEncoding('application/vnd.msgpack; v=1'), 'msgpack');
    assert.equal(bodyEncoding('application/vnd.msgpack; v=2'), undefined, 'a later wire version is refused under either name');
    assert.equal(bodyEncoding('application/msgpack'), 'msgpack');
    assert.equal(bodyEncoding('application/x-msgpack'), undefined, 'only the two names');
  });

  it('in an Accept, with the per-message parameter', () => {
    assert.ok(prefersMsgpack(IANA_ACCEPT));
    assert.equal(postReplyEncoding(IANA_ACCEPT), 'msgpack');
    assert.ok(!prefersMsgpack('application/json, application/vnd.msgpack'), 'JSON listed first is preferred');
    assert.ok(prefersMsgpack('application/vnd.msgpack, application/json, application/msgpack'));
    assert.ok(!prefersMsgpack('application/vnd.mcp-msgpack.stream, application/json, text/event-stream'), 'the stream type alone is not the body type');
    assert.ok(acceptsPerMessage(`application/vnd.msgpack;replies=any,${IANA_ACCEPT.slice('application/vnd.msgpack, '.length)}`));
    assert.ok(!acceptsPerMessage(IANA_ACCEPT));
  });

  it('in an Accept in any letter case (media type names are case-insensitive, 9.1)', () => {
    assert.equal(postReplyEncoding('APPLICATION/MSGPACK, APPLICATION/VND.MCP-MSGPACK.STREAM'), 'msgpack');
    assert.equal(postReplyEncoding('Application/Vnd.MsgPack, Application/Vnd.Mcp-MsgPack.Stream'), 'msgpack');
    assert.ok(prefersMsgpack('APPLICATION/MSGPACK'), 'an error reply is MessagePack too');
    assert.equal(postReplyEncoding('APPLICATION/JSON, TEXT/EVENT-STREAM, application/msgpack, application/vnd.mcp-msgpack.stream'), 'json', 'JSON listed first is preferred');
    assert.equal(postReplyEncoding('APPLICATION/MSGPACK'), undefined, 'without the stream type: 406');
  });
});

for (const kind of kinds) {
  async function serve(options: { encoding?: 'smallest' } = {}): Promise<URL> {
    const handler = new McpHttpHandler({ createServer: createNativeServer, nativeBytes: true, enableJsonResponse: true, encoding: options.encoding });
    const running = kind === 'Bun.serve' ? await listenBun(handler) : await listenNode(handler);
    cleanups.push(() => running.close());
    return running.url;
  }

  describe(`media types over HTTP (${kind})`, { timeout: 60_000 }, () => {
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'iana', version: '1' } } };
    const body = new CanonicalEncoder().encode(initialize) as BodyInit;

    it('the server reads a body labelled application/vnd.msgpack, honours it in Accept, and answers application/msgpack', async () => {
      const url = await serve({ encoding: 'smallest' });
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/vnd.msgpack', accept: IANA_ACCEPT }, body });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'application/msgpack');
      const reply = decode(new Uint8Array(await response.arrayBuffer())) as { id: number; result: { serverInfo: unknown } };
      assert.equal(reply.id, 1);
      assert.ok(reply.result.serverInfo);
      const later = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/vnd.msgpack; v=2', accept: IANA_ACCEPT }, body });
      assert.equal(later.status, 415, 'a later wire version is refused under the IANA name too');
      await later.body?.cancel();
    });

    it('replies=any on the application/vnd.msgpack range allows a JSON reply, with the signal', async () => {
      const url = await serve();
      const accept = `application/vnd.msgpack;replies=any,application/vnd.mcp-msgpack.stream,application/json,text/event-stream`;
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/vnd.msgpack', accept }, body });
      assert.equal(response.status, 200);
      // The default policy answers a small reply in JSON once the client says it reads either (SPEC.md 9.6).
      assert.equal(response.headers.get('content-type'), 'application/json');
      assert.equal(response.headers.get('mcp-msgpack-wire'), 'v1');
      await response.body?.cancel();
    });

    it('the client reads replies labelled application/vnd.msgpack as MessagePack, and keeps the wire', async () => {
      const url = await serve({ encoding: 'smallest' });
      const relabelled: string[] = [];
      // A server that names its MessagePack replies by the IANA name.
      const ianaServer = (async (input: string | URL | Request, init?: RequestInit) => {
        const response = await fetch(input, init);
        if (response.headers.get('content-type') !== 'application/msgpack') return response;
        const headers = new Headers(response.headers);
        headers.set('content-type', 'application/vnd.msgpack');
        relabelled.push(init?.method ?? 'GET');
        return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
      }) as typeof fetch;
      const fallbacks: unknown[] = [];
      const transport = new HttpMsgpackClientTransport(url, { nativeBytes: true, fetch: ianaServer, onwirefallback: (f) => fallbacks.push(f) });
      const { client } = createMediaClient(10);
      cleanups.push(() => client.close());
      await withTimeout(client.connect(transport), 10_000, 'connect');
      const { tools } = await client.listTools();
      assert.ok(tools.length > 0);
      const image = await callToolNative(client, { name: 'image', arguments: { bytes: 4096 } });
      const data = (image.content[1] as { data: unknown }).data;
      assert.ok(data instanceof Uint8Array && Buffer.from(data).equals(Buffer.from(mediaBytes(4096))), 'native bytes negotiated and delivered');
      assert.ok(relabelled.length >= 3, `${relabelled.length} replies relabelled`);
      assert.deepEqual(fallbacks, []);
      assert.equal(transport.wire, 'msgpack');
    });
  });
}
