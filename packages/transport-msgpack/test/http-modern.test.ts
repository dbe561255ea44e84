// MCP 2026-07-28 over HTTP (stateless, SEP-2243 headers) with SDK v2 on both sides: every pairing of
// {SDK v2's own HTTP transport, ours} x {client, server}, pinned and auto, on both of our wires; the
// header cross-check (-32020) on the decoded body; and a 2025-11-25 client on the same endpoint.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer, createMcpHandler, inputRequired } from '@modelcontextprotocol/server';
import { Packr, Unpackr } from 'msgpackr';
import * as z from 'zod/v4';
import { HttpMsgpackClientTransport, McpHttpHandler, listenBun, listenNode, nativeImage, type McpHttpHandlerOptions } from 'mcp-msgpack-transport';
import { hostFetch } from './fixtures/fetch-host.js';
import { MemoryEventStore, serverKinds, waitUntil, type ServerKind } from './fixtures/http-helpers.js';
import { modernToolCall } from './fixtures/modern-request.js';

const LIMIT = 30_000;
const MODERN = '2026-07-28';
const IMAGE = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7) % 251);

function makeV2Server(): McpServer {
  const server = new McpServer({ name: 'v2-server', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('image', { inputSchema: z.object({}) }, async () => ({
    content: [{ type: 'image', data: Buffer.from(IMAGE).toString('base64'), mimeType: 'image/png' }],
  }));
  server.registerTool('native-image', { inputSchema: z.object({}) }, async () => ({ content: [nativeImage(IMAGE, 'image/png')] }));
  return server;
}

interface Endpoint {
  url: URL;
  close(): Promise<void>;
}

async function ourEndpoint(kind: ServerKind, createServer: () => { connect(t: never): Promise<void>; close(): Promise<void> } = makeV2Server, options: Partial<McpHttpHandlerOptions> = {}): Promise<Endpoint> {
  const handler = new McpHttpHandler({ createServer: createServer as never, ...options });
  const running = kind === 'Bun.serve' ? await listenBun(handler) : await listenNode(handler);
  return { url: running.url, close: () => running.close() };
}

/** SDK v2's own createMcpHandler, on node:http. */
async function sdkEndpoint(): Promise<Endpoint> {
  const handler = createMcpHandler(() => makeV2Server());
  const hosted = await hostFetch('node:http', (request) => handler.fetch(request));
  return {
    url: hosted.url,
    close: async () => {
      await handler.close();
      await hosted.close();
    },
  };
}

type Negotiation = { mode: 'auto' } | { mode: { pin: string } };
const negotiations: [string, Negotiation][] = [
  ['pinned', { mode: { pin: MODERN } }],
  ['auto', { mode: 'auto' }],
];

type ClientTransportMaker = [string, (url: URL) => HttpMsgpackClientTransport | StreamableHTTPClientTransport];
const ourClients: ClientTransportMaker[] = [
  ['our client, msgpack', (url) => new HttpMsgpackClientTransport(url)],
  ['our client, json', (url) => new HttpMsgpackClientTransport(url, { wire: 'json' })],
];
const sdkClient: ClientTransportMaker = ["SDK v2's client", (url) => new StreamableHTTPClientTransport(url)];

/** Lists tools, calls the text tool and the image tool, and checks the revision and the image's bytes. */
async function exercise(url: URL, makeTransport: ClientTransportMaker[1], negotiation: Negotiation): Promise<string | undefined> {
  const client = new Client({ name: 'v2-client', version: '1.0.0' }, { versionNegotiation: negotiation });
  const transport = makeTransport(url);
  await client.connect(transport as never);
  try {
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
    assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), ['echo', 'image', 'native-image']);
    const echo = await client.callTool({ name: 'echo', arguments: { text: 'über' } });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'über' }]);
    const image = await client.callTool({ name: 'image', arguments: {} });
    const block = (image.content as { type: string; data: string }[])[0]!;
    assert.equal(block.type, 'image');
    assert.deepEqual(new Uint8Array(Buffer.from(block.data, 'base64')), IMAGE);
    return transport instanceof HttpMsgpackClientTransport ? transport.wire : undefined;
  } finally {
    await client.close();
  }
}

for (const kind of serverKinds) {
  describe(`2026-07-28 over HTTP: SDK v2 clients against our handler serving an SDK v2 McpServer (${kind})`, { timeout: LIMIT }, () => {
    let endpoint: Endpoint;
    before(async () => {
      endpoint = await ourEndpoint(kind);
    });
    after(async () => {
      await endpoint.close();
    });

    for (const [how, negotiation] of negotiations) {
      for (const [who, make] of [...ourClients, sdkClient]) {
        it(`${who}, ${how}: lists tools, calls a text tool and an image tool`, async () => {
          const wire = await exercise(endpoint.url, make, negotiation);
          if (who === 'our client, msgpack') assert.equal(wire, 'msgpack');
        });
      }
    }

    it('an SDK v1 client on 2025-11-25 still gets its session at the same endpoint', async () => {
      const client = new ClientV1({ name: 'old', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransportV1(endpoint.url);
      await client.connect(transport);
      try {
        assert.ok(transport.sessionId, 'a session id');
        assert.equal(transport.protocolVersion, '2025-11-25');
        const result = await client.callTool({ name: 'echo', arguments: { text: 'old' } });
        assert.deepEqual(result.content, [{ type: 'text', text: 'old' }]);
      } finally {
        await client.close();
      }
    });

    it('an SDK v2 client in auto mode falls back to 2025-11-25 when the served server cannot do 2026-07-28 (SDK v1)', async () => {
      const v1 = await ourEndpoint(kind, () => {
        const server = new McpServerV1({ name: 'v1-server', version: '1.0.0' });
        server.registerTool('echo', { inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'v1' }] }));
        return server as never;
      });
      try {
        for (const [, make] of [...ourClients, sdkClient]) {
          const client = new Client({ name: 'v2-client', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
          await client.connect(make(v1.url) as never);
          try {
            assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
            assert.deepEqual((await client.callTool({ name: 'echo', arguments: {} })).content, [{ type: 'text', text: 'v1' }]);
          } finally {
            await client.close();
          }
        }
      } finally {
        await v1.close();
      }
    });
  });
}

describe("2026-07-28 over HTTP: SDK v2 client with our transport against SDK v2's createMcpHandler", { timeout: LIMIT }, () => {
  let endpoint: Endpoint;
  before(async () => {
    endpoint = await sdkEndpoint();
  });
  after(async () => {
    await endpoint.close();
  });
  for (const [how, negotiation] of negotiations) {
    for (const [who, make] of ourClients) {
      it(`${who}, ${how}: lists tools, calls a text tool and an image tool`, async () => {
        // createMcpHandler takes JSON only: the msgpack client falls back, and must still send the headers.
        assert.equal(await exercise(endpoint.url, make, negotiation), 'json');
      });
    }
  }
});

const packr = new Packr({ useRecords: false, variableMapSize: true });
const unpackr = new Unpackr({ useRecords: false });

function enveloped(method: string, params: Record<string, unknown> = {}, id = 7): Record<string, unknown> {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta } };
}

/** Posts one MessagePack body with the given headers and decodes the MessagePack reply. */
async function postMsgpack(url: URL, body: unknown, headers: Record<string, string>): Promise<{ status: number; reply: Record<string, any> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/msgpack', accept: 'application/msgpack, application/vnd.mcp-msgpack.stream', ...headers },
    body: new Uint8Array(packr.pack(body)),
  });
  assert.equal(response.headers.get('content-type'), 'application/msgpack');
  return { status: response.status, reply: unpackr.unpack(new Uint8Array(await response.arrayBuffer())) };
}

/** The JSON-RPC messages of a msgpack-v1 frame stream (control maps, which have no jsonrpc, left out). */
/** The messages of a MessagePack reply: a frame stream's, or a one-body reply's one (SPEC.md 9.6.2). */
function msgpackReplies(type: string | null, bytes: Uint8Array): Record<string, any>[] {
  if (type === 'application/msgpack') return [unpackr.unpack(bytes)];
  return type === 'application/vnd.mcp-msgpack.stream' ? framedMessages(bytes) : [];
}

function framedMessages(bytes: Uint8Array): Record<string, any>[] {
  const messages: Record<string, any>[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at < bytes.length; ) {
    const length = view.getUint32(at);
    const value = unpackr.unpack(bytes.subarray(at + 4, at + 4 + length));
    if ('jsonrpc' in value) messages.push(value);
    at += 4 + length;
  }
  return messages;
}

for (const kind of serverKinds) {
  describe(`2026-07-28 over HTTP: our server checks the SEP-2243 headers against the decoded MessagePack body (${kind})`, { timeout: LIMIT }, () => {
    let endpoint: Endpoint;
    before(async () => {
      endpoint = await ourEndpoint(kind);
    });
    after(async () => {
      await endpoint.close();
    });

    it('a request whose Mcp-Method disagrees with its body gets 400 and -32020, answering its id', async () => {
      const { status, reply } = await postMsgpack(endpoint.url, enveloped('tools/list'), { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call' });
      assert.equal(status, 400);
      assert.equal(reply.id, 7);
      assert.equal(reply.error.code, -32020);
      assert.deepEqual(reply.error.data, { mismatch: { header: 'tools/call', body: 'the body names method tools/list but the Mcp-Method header names tools/call' } });
    });

    it('a request without the MCP-Protocol-Version header gets -32020, not a session error', async () => {
      const { status, reply } = await postMsgpack(endpoint.url, enveloped('tools/list'), { 'mcp-method': 'tools/list' });
      assert.equal(status, 400);
      assert.equal(reply.error.code, -32020);
      assert.match(reply.error.message, /names protocol version 2026-07-28 but the required MCP-Protocol-Version header is absent/);
    });

    it('Mcp-Name must mirror params.name (absent, different, or a broken sentinel: -32020); the sentinel form is decoded', async () => {
      const call = enveloped('tools/call', { name: 'echo', arguments: { text: 'x' } });
      const base = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call' };
      for (const name of [undefined, 'image', '=?base64?***?=']) {
        const { status, reply } = await postMsgpack(endpoint.url, call, name === undefined ? base : { ...base, 'mcp-name': name });
        assert.equal(status, 400, String(name));
        assert.equal(reply.error.code, -32020, String(name));
        // The refusal answers the request (its id echoed) and names the header, as SDK v2's does.
        assert.equal(reply.id, call.id, String(name));
        assert.equal(reply.error.data.mismatch.header, name ?? '(missing)', String(name));
      }
      const response = await fetch(endpoint.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/msgpack',
          accept: 'application/msgpack, application/vnd.mcp-msgpack.stream',
          ...base,
          'mcp-name': `=?base64?${Buffer.from('echo').toString('base64')}?=`,
        },
        body: new Uint8Array(packr.pack(call)),
      });
      await response.body?.cancel();
      assert.equal(response.status, 200);
    });

    it('headers that agree get the answer, with no session id', async () => {
      const response = await fetch(endpoint.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/msgpack',
          accept: 'application/msgpack, application/vnd.mcp-msgpack.stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'server/discover',
        },
        body: new Uint8Array(packr.pack(enveloped('server/discover'))),
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('mcp-session-id'), null);
      const reply = msgpackReplies(response.headers.get('content-type'), new Uint8Array(await response.arrayBuffer())).find((m) => m.id === 7)!;
      assert.deepEqual(reply.result.supportedVersions, [MODERN]);
      assert.equal(reply.result.resultType, 'complete');
    });
  });
}

/** A server with one tool that needs the client's sampling capability, which the requests here never declare. */
function makeSamplingServer(): McpServer {
  const server = makeV2Server();
  server.registerTool('needs-sampling', { inputSchema: z.object({}) }, async () =>
    inputRequired({ inputRequests: { q: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 }) } }),
  );
  return server;
}

/** One 2026-07-28 request on either wire (headers derived from the body, as a client would); the decoded reply. */
async function postModern(url: URL, wire: 'msgpack' | 'json', body: Record<string, any>, headers: Record<string, string> = {}) {
  const derived: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': body.method, ...(body.params?.name ? { 'mcp-name': body.params.name } : {}), ...headers };
  const response = await fetch(url, {
    method: 'POST',
    headers:
      wire === 'msgpack'
        ? { 'content-type': 'application/msgpack', accept: 'application/msgpack, application/vnd.mcp-msgpack.stream', ...derived }
        : { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...derived },
    body: wire === 'msgpack' ? new Uint8Array(packr.pack(body)) : JSON.stringify(body),
  });
  const type = response.headers.get('content-type');
  const bytes = new Uint8Array(await response.arrayBuffer());
  // A streamed answer ends with the reply.
  const reply =
    type === 'application/vnd.mcp-msgpack.stream'
      ? framedMessages(bytes).at(-1)!
      : type === 'application/msgpack'
        ? unpackr.unpack(bytes)
        : type === 'text/event-stream'
          ? JSON.parse(
              new TextDecoder()
                .decode(bytes)
                .trim()
                .split('\n')
                .filter((line) => line.startsWith('data:'))
                .at(-1)!
                .slice(5),
            )
          : JSON.parse(new TextDecoder().decode(bytes));
  return { status: response.status, reply, type };
}

for (const kind of serverKinds) {
  describe(`2026-07-28 over HTTP: errors the SDK answers before any handler runs get their HTTP status (${kind})`, { timeout: LIMIT }, () => {
    let endpoint: Endpoint;
    before(async () => {
      endpoint = await ourEndpoint(kind, makeSamplingServer);
    });
    after(async () => {
      await endpoint.close();
    });

    for (const wire of ['msgpack', 'json'] as const) {
      it(`${wire}: a method the revision removed, or the server lacks, gets 404 with -32601 and its id`, async () => {
        for (const method of ['ping', 'logging/setLevel', 'unknown/method']) {
          const { status, reply } = await postModern(endpoint.url, wire, enveloped(method, {}, 31));
          assert.equal(status, 404, method);
          assert.equal(reply.error.code, -32601, method);
          assert.equal(reply.id, 31, method);
        }
      });

      it(`${wire}: an envelope without clientCapabilities gets 400 with -32602`, async () => {
        const body = enveloped('tools/list') as { params: { _meta: Record<string, unknown> } };
        delete body.params._meta['io.modelcontextprotocol/clientCapabilities'];
        const { status, reply } = await postModern(endpoint.url, wire, body);
        assert.equal(status, 400);
        assert.equal(reply.error.code, -32602);
        assert.deepEqual(reply.error.data, { envelope: { key: 'io.modelcontextprotocol/clientCapabilities', problem: 'missing' } });
      });

      it(`${wire}: an unsupported revision gets 400 with -32022 listing the revisions served`, async () => {
        const body = enveloped('tools/list') as { params: { _meta: Record<string, unknown> } };
        body.params._meta['io.modelcontextprotocol/protocolVersion'] = '2099-01-01';
        const { status, reply } = await postModern(endpoint.url, wire, body, { 'mcp-protocol-version': '2099-01-01' });
        assert.equal(status, 400);
        assert.equal(reply.error.code, -32022);
        assert.deepEqual(reply.error.data, { supported: [MODERN], requested: '2099-01-01' });
      });

      it(`${wire}: a tool that needs a capability the client did not declare gets 400 with -32021, after the handler ran`, async () => {
        const { status, reply } = await postModern(endpoint.url, wire, enveloped('tools/call', { name: 'needs-sampling', arguments: {} }, 32));
        assert.equal(status, 400);
        assert.equal(reply.error.code, -32021);
        assert.deepEqual(reply.error.data.requiredCapabilities, { sampling: {} });
        assert.equal(reply.id, 32);
      });

      it(`${wire}: a handler's own error stays in-band on 200, and answers still stream`, async () => {
        const failed = await postModern(endpoint.url, wire, enveloped('tools/call', { name: 'no-such-tool', arguments: {} }));
        assert.equal(failed.status, 200);
        assert.ok(failed.reply.error || failed.reply.result?.isError, JSON.stringify(failed.reply));
        const echoed = await postModern(endpoint.url, wire, enveloped('tools/call', { name: 'echo', arguments: { text: 'ok' } }));
        assert.equal(echoed.status, 200);
        assert.deepEqual(echoed.reply.result.content, [{ type: 'text', text: 'ok' }]);
      });
    }

    it('a 2025-11-25 session still gets -32601 in-band on 200', async () => {
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const init = await fetch(endpoint.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
      });
      await init.body?.cancel();
      const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
      const initialized = await fetch(endpoint.url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
      assert.equal(initialized.status, 202);
      const unknown = await fetch(endpoint.url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'unknown/method' }) });
      const text = await unknown.text();
      assert.equal(unknown.status, 200);
      assert.match(text, /-32601/);
    });
  });
}

describe('our HTTP client derives the SEP-2243 headers from each message, on both wires', () => {
  for (const wire of ['msgpack', 'json'] as const) {
    it(`${wire}: version, method and name (sentinel-encoded when not plain ASCII); per-send headers, never over the derived ones`, async () => {
      const seen: Headers[] = [];
      const fetchSpy = async (_url: string | URL, init?: RequestInit) => {
        seen.push(new Headers(init?.headers));
        return new Response(null, { status: 202 });
      };
      const transport = new HttpMsgpackClientTransport(new URL('http://127.0.0.1:9/mcp'), { wire, fetch: fetchSpy as never });
      await transport.start();
      await transport.send(enveloped('tools/call', { name: 'grüße', arguments: {} }) as never, {
        headers: { 'Mcp-Param-Region': 'eu', 'mcp-method': 'forged', 'content-type': 'text/plain' },
      });
      await transport.send(enveloped('tools/list') as never);
      await transport.send({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} });
      await transport.close();
      const [call, list, legacy] = seen;
      assert.equal(call!.get('mcp-protocol-version'), MODERN);
      assert.equal(call!.get('mcp-method'), 'tools/call');
      assert.equal(call!.get('mcp-name'), `=?base64?${Buffer.from('grüße').toString('base64')}?=`);
      assert.equal(call!.get('mcp-param-region'), 'eu');
      assert.equal(call!.get('content-type'), wire === 'msgpack' ? 'application/msgpack' : 'application/json');
      assert.equal(list!.get('mcp-method'), 'tools/list');
      assert.equal(list!.get('mcp-name'), null);
      assert.equal(legacy!.get('mcp-method'), null);
      assert.equal(legacy!.get('mcp-protocol-version'), null);
    });
  }
});

for (const kind of serverKinds) {
  describe(`2026-07-28 over HTTP: native bytes negotiated per request, no session (${kind})`, { timeout: LIMIT }, () => {
    let endpoint: Endpoint;
    before(async () => {
      endpoint = await ourEndpoint(kind, makeV2Server, { nativeBytes: true });
    });
    after(async () => {
      await endpoint.close();
    });

    /** A fetch that keeps every request and reply body (each reply read whole: 2026-07-28 streams end with the answer). */
    function recordingFetch(): { fetch: typeof fetch; sent: Uint8Array[]; received: { type: string | null; body: Uint8Array }[] } {
      const sent: Uint8Array[] = [];
      const received: { type: string | null; body: Uint8Array }[] = [];
      const recording = (async (url: string | URL, init?: RequestInit) => {
        if (init?.body instanceof Uint8Array) sent.push(init.body);
        const response = await fetch(url, init);
        const body = new Uint8Array(await response.arrayBuffer());
        received.push({ type: response.headers.get('content-type'), body });
        return new Response(response.status === 202 ? null : body, { status: response.status, headers: response.headers });
      }) as typeof fetch;
      return { fetch: recording, sent, received };
    }

    for (const [how, negotiation] of negotiations) {
      it(`${how}: each request offers it in its _meta, discover advertises it, and the image comes back as bin`, async () => {
        const recorder = recordingFetch();
        const client = new Client({ name: 'v2-client', version: '1.0.0' }, { versionNegotiation: negotiation });
        const transport = new HttpMsgpackClientTransport(endpoint.url, { nativeBytes: true, fetch: recorder.fetch });
        await client.connect(transport as never);
        try {
          const result = await client.callTool({ name: 'native-image', arguments: {} });
          const block = (result.content as { data: string }[])[0]!;
          assert.deepEqual(new Uint8Array(Buffer.from(block.data, 'base64')), IMAGE, 'handed to the SDK as base64, bytes intact');
        } finally {
          await client.close();
        }
        const requests = recorder.sent.map((body) => unpackr.unpack(body) as Record<string, any>);
        const call = requests.find((request) => request.method === 'tools/call')!;
        assert.deepEqual(call.params._meta['io.modelcontextprotocol/clientCapabilities'].experimental, { 'mcp-msgpack/native-bytes': { version: 1 } });
        const replies = recorder.received.flatMap(({ type, body }) => msgpackReplies(type, body));
        const discover = replies.find((reply) => reply.result?.supportedVersions)!;
        assert.deepEqual(discover.result.capabilities.experimental, { 'mcp-msgpack/native-bytes': { version: 1 } });
        const image = replies.find((reply) => reply.id === call.id)!.result.content[0].data;
        assert.ok(image instanceof Uint8Array, 'bin on the wire, not base64');
        assert.deepEqual(new Uint8Array(image), IMAGE);
      });
    }

    it('a JSON-wire client offers nothing and gets base64', async () => {
      const recorder = recordingFetch();
      const client = new Client({ name: 'v2-client', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
      await client.connect(new HttpMsgpackClientTransport(endpoint.url, { nativeBytes: true, wire: 'json', fetch: recorder.fetch }) as never);
      try {
        const result = await client.callTool({ name: 'native-image', arguments: {} });
        assert.deepEqual(new Uint8Array(Buffer.from((result.content as { data: string }[])[0]!.data, 'base64')), IMAGE);
      } finally {
        await client.close();
      }
      assert.equal(recorder.sent.length, 0, 'JSON bodies are strings, never bytes');
    });
  });
}

for (const kind of serverKinds) {
  describe(`2026-07-28 over HTTP: subscriptions/listen streams at our handler (${kind})`, { timeout: LIMIT }, () => {
    let handler: McpHttpHandler;
    let close: () => Promise<void>;
    let url: URL;
    before(async () => {
      handler = new McpHttpHandler({ createServer: makeV2Server as never });
      const running = kind === 'Bun.serve' ? await listenBun(handler) : await listenNode(handler);
      url = running.url;
      close = () => running.close();
    });
    after(async () => {
      await close();
    });

    for (const [who, make] of [...ourClients, sdkClient]) {
      it(`${who}: acknowledged with the honored filter, then hears what the endpoint announces; the stream ends with the client`, async () => {
        const client = new Client({ name: 'v2-client', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
        let changed = 0;
        client.setNotificationHandler('notifications/tools/list_changed', () => {
          changed++;
        });
        await client.connect(make(url) as never);
        try {
          const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true });
          assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true }, 'the server has tools, not prompts');
          assert.equal(handler.listenCount, 1);
          handler.notify.promptsChanged();
          handler.notify.toolsChanged();
          await waitUntil(() => changed === 1, 'tools/list_changed on the listen stream');
        } finally {
          await client.close();
        }
        await waitUntil(() => handler.listenCount === 0, 'the stream to end');
        assert.equal(changed, 1);
      });

      it(`${who}: closing the subscription ends the stream at the server while the client stays connected`, async () => {
        const client = new Client({ name: 'v2-client', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
        await client.connect(make(url) as never);
        try {
          const subscription = await client.listen({ toolsListChanged: true });
          assert.equal(handler.listenCount, 1);
          await subscription.close();
          assert.equal(await subscription.closed, 'local');
          await waitUntil(() => handler.listenCount === 0, 'the closed subscription to end its stream at the server');
          const echo = await client.callTool({ name: 'echo', arguments: { text: 'after' } });
          assert.deepEqual(echo.content, [{ type: 'text', text: 'after' }]);
        } finally {
          await client.close();
        }
      });
    }
  });
}

describe('2026-07-28 over HTTP: server instances are reused between requests, one request at a time', { timeout: LIMIT }, () => {
  /** A v2 server whose tool says which instance answered and which client it believes it serves. */
  function countingFactory(): { make: () => McpServer; made: () => number } {
    let made = 0;
    const make = () => {
      const instance = ++made;
      const server = new McpServer({ name: 'v2-server', version: '1.0.0' });
      server.registerTool('whoami', { inputSchema: z.object({}) }, async () => ({
        content: [{ type: 'text', text: `${instance}:${server.server.getClientVersion()?.name}` }],
      }));
      return server;
    };
    return { make, made: () => made };
  }

  for (const reuseServers of [true, false]) {
    it(`reuseServers ${reuseServers}: ${reuseServers ? 'one instance serves sequential calls' : 'a fresh instance per request'}, and each call sees its own client`, async () => {
      const factory = countingFactory();
      const handler = new McpHttpHandler({ createServer: factory.make as never, reuseServers });
      const running = await listenNode(handler);
      try {
        const answers: string[] = [];
        for (const name of ['first', 'second']) {
          const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
          await client.connect(new HttpMsgpackClientTransport(running.url) as never);
          try {
            for (let i = 0; i < 3; i++) answers.push(((await client.callTool({ name: 'whoami', arguments: {} })).content as { text: string }[])[0]!.text);
          } finally {
            await client.close();
          }
        }
        assert.deepEqual(
          answers.map((answer) => answer.split(':')[1]),
          ['first', 'first', 'first', 'second', 'second', 'second'],
        );
        const instances = new Set(answers.map((answer) => answer.split(':')[0]));
        // Reused: the next call usually finds the instance given back (after its reply, so not always).
        if (reuseServers) assert.ok(instances.size < 6, `answered by ${[...instances].join(', ')}`);
        else assert.equal(instances.size, 6);
      } finally {
        await running.close();
      }
    });
  }

  const modernCall = (id: number) => modernToolCall(id, 'whoami');

  it('a message a kept server sends outside any request reaches no client and is neither held nor stored (no GET stream on 2026-07-28)', async () => {
    // A tool that changes the server's tools, as a plugin loader would: McpServer announces it on its own,
    // related to no request. On the session path it goes to the GET stream; here there is none to go to.
    let made = 0;
    const make = () => {
      made++;
      const server = new McpServer({ name: 'v2-server', version: '1.0.0' });
      server.registerTool('announce', { inputSchema: z.object({}) }, async () => {
        server.sendToolListChanged();
        return { content: [{ type: 'text', text: 'announced' }] };
      });
      return server;
    };
    const store = new MemoryEventStore();
    const handler = new McpHttpHandler({ createServer: make as never, eventStore: store, enableJsonResponse: true });
    try {
      for (const id of [1, 2, 3]) assert.match(await (await handler.handle(modernToolCall(id, 'announce'))).text(), /announced/);
      assert.equal(made, 1, 'one kept instance served the three calls');
      // Before, each announcement was stored under the standalone stream id every per-request transport shares.
      assert.deepEqual(
        store.events.map((event) => (event.message as { method?: string }).method),
        [],
      );
    } finally {
      await handler.close();
    }
  });

  const forms = [
    ['a reply in memory (enableJsonResponse) gives its instance back before it is read', { enableJsonResponse: true }, 1],
    ['a held reply answered at once (one body) gives its instance back before it is read', {}, 1],
    ['a reply stream keeps its instance until it is read', { replyStreams: 'always' }, 2],
  ] as const;
  for (const [reply, options, made] of forms) {
    it(`${reply}`, async () => {
      const factory = countingFactory();
      const handler = new McpHttpHandler({ createServer: factory.make as never, ...options });
      try {
        const first = await handler.handle(modernCall(1));
        const second = await handler.handle(modernCall(2));
        assert.equal(factory.made(), made);
        for (const response of [first, second]) assert.match(await response.text(), /:raw/);
      } finally {
        await handler.close();
      }
    });
  }
});
