// McpHttpHandler.handle() used as a web-standard fetch handler (Hono, Deno, a framework on Node): replies
// read through response.body, on both wires, including the in-memory bodies the node adapter writes itself.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decoder } from '@msgpack/msgpack';
import { McpHttpHandler } from 'mcp-msgpack-transport';
import { MSGPACK_CLIENT_ACCEPT } from 'mcp-msgpack-transport/wire';
import { createNativeServer, mediaBytes } from './fixtures/native-tools.js';

const URL_ = 'http://127.0.0.1/mcp';
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const decoder = new Decoder({ maxBinLength: 1 << 20, maxStrLength: 1 << 20 });

async function session(handler: McpHttpHandler, wire: 'json' | 'msgpack'): Promise<(message: unknown) => Promise<unknown>> {
  let id: string | undefined;
  const post = async (message: unknown) => {
    const headers: Record<string, string> =
      wire === 'json'
        ? { host: '127.0.0.1', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
        : { host: '127.0.0.1', 'content-type': 'application/msgpack', accept: MSGPACK_CLIENT_ACCEPT };
    if (id) Object.assign(headers, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' });
    const { Encoder } = await import('@msgpack/msgpack');
    const body = wire === 'json' ? JSON.stringify(message) : new Encoder().encode(message);
    const response = await handler.handle(new Request(URL_, { method: 'POST', headers, body }), { localAddress: '127.0.0.1' });
    id ??= response.headers.get('mcp-session-id') ?? undefined;
    if (response.status === 202) return undefined;
    assert.equal(response.status, 200);
    if (wire === 'json') {
      // Set on Node (the adapter-less body is lazy); Bun adds it when it sends.
      const length = response.headers.get('content-length');
      if (length !== null) assert.equal(Number(length), Buffer.byteLength(await response.clone().text()));
      return response.json();
    }
    return decoder.decode(new Uint8Array(await response.arrayBuffer()));
  };
  await post(initialize);
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return post;
}

describe('McpHttpHandler.handle() as a web fetch handler', { timeout: 30_000 }, () => {
  for (const wire of ['json', 'msgpack'] as const) {
    it(`${wire}: single replies read through response.body, a 200 KB image among them`, async () => {
      const handler = new McpHttpHandler({ createServer: createNativeServer, nativeBytes: true, enableJsonResponse: true });
      try {
        const post = await session(handler, wire);
        const reply = (await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'image', arguments: { bytes: 200_000, seed: 3 } } })) as {
          result: { content: { type: string; data?: unknown }[] };
        };
        const data = reply.result.content.find((block) => block.type === 'image')!.data;
        // Not negotiated (the raw requests do not offer it): standard base64 on both wires.
        assert.ok(Buffer.from(data as string, 'base64').equals(mediaBytes(200_000, 3)));
      } finally {
        await handler.close();
      }
    });
  }
});

describe('McpHttpHandler: Host and Origin checked once per request, before anything else', { timeout: 30_000 }, () => {
  const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const request = (headers: Record<string, string>, message: unknown = initialize) => new Request(URL_, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify(message) });

  it('a refused request makes no server instance, on every route', async () => {
    let made = 0;
    const handlers = [false, true].map((stateless) => new McpHttpHandler({ stateless, createServer: (() => (made++, createNativeServer())) as typeof createNativeServer }));
    try {
      const hostile: Record<string, string>[] = [
        { host: 'evil.example' },
        { host: '127.0.0.1', origin: 'http://evil.example' },
        // A 2026-07-28 request (routed by its headers to a fresh server), and a session this instance lacks.
        { host: 'evil.example', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
        { host: 'evil.example', 'mcp-session-id': 'elsewhere' },
      ];
      for (const handler of handlers) {
        for (const headers of hostile) {
          const response = await handler.handle(request(headers), { localAddress: '127.0.0.1' });
          assert.equal(response.status, 403, JSON.stringify(headers));
        }
      }
      assert.equal(made, 0, 'no server was made for a refused request');
      const accepted = await handlers[0]!.handle(request({ host: '127.0.0.1' }), { localAddress: '127.0.0.1' });
      assert.equal(accepted.status, 200);
      assert.equal(made, 1);
    } finally {
      await Promise.all(handlers.map((handler) => handler.close()));
    }
  });

  it('a live session refuses a request from a foreign Host or Origin', async () => {
    const handler = new McpHttpHandler({ createServer: createNativeServer, enableJsonResponse: true });
    try {
      const opened = await handler.handle(request({ host: '127.0.0.1' }), { localAddress: '127.0.0.1' });
      const sessionId = opened.headers.get('mcp-session-id')!;
      assert.ok(sessionId);
      const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
      const inSession = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
      for (const foreign of [{ host: 'evil.example' }, { host: '127.0.0.1', origin: 'http://evil.example' }] as Record<string, string>[]) {
        const response = await handler.handle(request({ ...inSession, ...foreign }, ping), { localAddress: '127.0.0.1' });
        assert.equal(response.status, 403, JSON.stringify(foreign));
      }
      const ok = await handler.handle(request({ ...inSession, host: '127.0.0.1' }, ping), { localAddress: '127.0.0.1' });
      assert.equal(ok.status, 200);
    } finally {
      await handler.close();
    }
  });
});

describe('McpHttpHandler: a failure on the server side is a JSON-RPC internal error, not a bare 500', { timeout: 30_000 }, () => {
  const failing = () => new McpHttpHandler({ createServer: () => Promise.reject(new Error('no database')) });
  for (const wire of ['json', 'msgpack'] as const) {
    it(`${wire}: createServer throwing answers 500 with -32603 and the reason, in the wire the client accepts`, async () => {
      const handler = failing();
      try {
        const headers: Record<string, string> =
          wire === 'json'
            ? { host: '127.0.0.1', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
            : { host: '127.0.0.1', 'content-type': 'application/msgpack', accept: MSGPACK_CLIENT_ACCEPT };
        const { Encoder } = await import('@msgpack/msgpack');
        const body = wire === 'json' ? JSON.stringify(initialize) : new Encoder().encode(initialize);
        const response = await handler.handle(new Request(URL_, { method: 'POST', headers, body }), { localAddress: '127.0.0.1' });
        assert.equal(response.status, 500);
        const reply = (wire === 'json' ? await response.json() : decoder.decode(new Uint8Array(await response.arrayBuffer()))) as {
          error: { code: number; data: { reason: string; detail: string } };
        };
        assert.equal(reply.error.code, -32603);
        assert.deepEqual(reply.error.data, { reason: 'server-error', detail: 'no database' });
      } finally {
        await handler.close();
      }
    });
  }

  it('through listenNode: the same 500 with a JSON-RPC body over real HTTP', async () => {
    const { listenNode } = await import('mcp-msgpack-transport');
    const handler = failing();
    const running = await listenNode(handler, { port: 0 });
    try {
      const response = await fetch(running.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(initialize),
      });
      assert.equal(response.status, 500);
      const reply = (await response.json()) as { error: { code: number; data: { reason: string } } };
      assert.equal(reply.error.code, -32603);
      assert.equal(reply.error.data.reason, 'server-error');
    } finally {
      await running.close();
      await handler.close();
    }
  });
});

describe('McpHttpHandler.handle(): how a POST body is read', { timeout: 30_000 }, () => {
  const headers = { host: '127.0.0.1', 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  /** The request, and whether anything asked for its body as a stream. */
  function watched(request: Request): { request: Request; streamed: () => boolean } {
    let streamed = false;
    const proxy = new Proxy(request, {
      get(target, key) {
        if (key === 'body') streamed = true;
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return { request: proxy, streamed: () => streamed };
  }

  it('with a Content-Length: read whole (arrayBuffer), its stream never made', async () => {
    const handler = new McpHttpHandler({ createServer: createNativeServer, enableJsonResponse: true });
    try {
      const text = JSON.stringify(initialize);
      const { request, streamed } = watched(new Request(URL_, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(text)) }, body: text }));
      const response = await handler.handle(request, { localAddress: '127.0.0.1' });
      assert.equal(response.status, 200);
      assert.equal(((await response.json()) as { id: number }).id, 1);
      assert.equal(streamed(), false, 'a body of known length needs no stream');
    } finally {
      await handler.close();
    }
  });

  it('without one: read as a stream, and refused 413 once past the cap', async () => {
    const handler = new McpHttpHandler({ createServer: createNativeServer, enableJsonResponse: true, maxMessageBytes: 1024 });
    try {
      const body = () => new Blob([JSON.stringify({ ...initialize, params: { ...initialize.params, padding: 'x'.repeat(4096) } })]).stream();
      const { request, streamed } = watched(new Request(URL_, { method: 'POST', headers, body: body(), duplex: 'half' } as RequestInit));
      const response = await handler.handle(request, { localAddress: '127.0.0.1' });
      assert.equal(response.status, 413);
      assert.equal(streamed(), true);
      // A body longer than the Content-Length it claims is measured as read: past the cap, 413 too.
      const lying = new Request(URL_, { method: 'POST', headers: { ...headers, 'content-length': '100' }, body: body(), duplex: 'half' } as RequestInit);
      assert.equal((await handler.handle(lying, { localAddress: '127.0.0.1' })).status, 413);
      assert.equal(handler.sessionCount, 0);
    } finally {
      await handler.close();
    }
  });
});
