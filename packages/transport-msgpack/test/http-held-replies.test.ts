// Held replies (SPEC.md 9.6.2): a POST carrying one request is answered with one body when its result is
// the first message for it, with the stream otherwise (progress first, silence past the hold interval), on
// the wire bytes, for every kind of Accept, on the 2025-11-25 session path and the 2026-07-28 per-request path.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { decode } from '@msgpack/msgpack';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { HttpMsgpackClientTransport, McpHttpHandler, listenBun, listenNode, type McpHttpHandlerOptions } from 'mcp-msgpack-transport';
import { MemoryEventStore } from './fixtures/http-helpers.js';
import { streamEvents, type StreamEvent } from './fixtures/stream-events.js';

const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';
const kinds = isBun ? (['node:http', 'Bun.serve'] as const) : (['node:http'] as const);
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => {});
});

const MODERN = '2026-07-28';
const ACCEPTS = {
  /** A stock SDK client (TypeScript v1/v2, Python). */
  json: 'application/json, text/event-stream',
  /** A 0.1.0 client: MessagePack, without saying it reads JSON bodies too. */
  msgpack: 'application/msgpack, application/vnd.mcp-msgpack.stream, application/json, text/event-stream',
  /** This version's clients: either encoding per one-body reply (SPEC.md 9.6). */
  any: 'application/msgpack;replies=any, application/vnd.mcp-msgpack.stream, application/json, text/event-stream',
} as const;
type AcceptKind = keyof typeof ACCEPTS;
const STREAM_TYPE: Record<AcceptKind, string> = { json: 'text/event-stream', msgpack: 'application/vnd.mcp-msgpack.stream', any: 'application/vnd.mcp-msgpack.stream' };

/** What the tools saw: `gate` holds the `wait` tool until the test lets it go. */
interface Probe {
  gate: Promise<void>;
  release(): void;
  waiting: number;
  finished: number;
}

function newProbe(): Probe {
  const probe = { waiting: 0, finished: 0 } as Probe;
  probe.gate = new Promise<void>((resolve) => (probe.release = resolve));
  return probe;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An SDK v2 server: it serves both revisions. */
function makeServer(probe: Probe, slowMs: number): McpServer {
  const server = new McpServer({ name: 'held', version: '1.0.0' });
  const none = z.object({});
  server.registerTool('small', { inputSchema: none }, async () => ({ content: [{ type: 'text', text: 'hi' }] }));
  server.registerTool('progress', { inputSchema: none }, async (_args, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken ?? 'p1';
    await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: 1, total: 2 } });
    return { content: [{ type: 'text', text: 'done' }] };
  });
  server.registerTool('slow', { inputSchema: none }, async () => {
    await sleep(slowMs);
    return { content: [{ type: 'text', text: 'late' }] };
  });
  server.registerTool('wait', { inputSchema: none }, async () => {
    probe.waiting++;
    await probe.gate;
    probe.finished++;
    return { content: [{ type: 'text', text: 'released' }] };
  });
  server.registerTool('fail', { inputSchema: none }, async () => {
    throw new Error('tool failed');
  });
  return server;
}

interface Served {
  url: URL;
  handler: McpHttpHandler;
  probe: Probe;
}

async function serve(kind: (typeof kinds)[number], options: Partial<McpHttpHandlerOptions> = {}, slowMs = 600): Promise<Served> {
  const probe = newProbe();
  cleanups.push(async () => probe.release());
  const handler = new McpHttpHandler({ createServer: () => makeServer(probe, slowMs) as never, keepAliveMs: 200, ...options });
  const running = kind === 'Bun.serve' ? await listenBun(handler) : await listenNode(handler);
  cleanups.push(() => running.close());
  return { url: running.url, handler, probe };
}

type Path = 'session' | 'per-request';

/** Posts JSON-RPC bodies as JSON with the given Accept; a session path opens its session first. */
class RawClient {
  private sessionId: string | undefined;
  private nextId = 1;

  constructor(
    private readonly url: URL,
    private readonly path: Path,
    private readonly accept: string,
  ) {}

  async open(): Promise<void> {
    if (this.path === 'per-request') return;
    const init = await this.post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    this.sessionId = init.headers.get('mcp-session-id') ?? undefined;
    await init.arrayBuffer();
    const initialized = await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(initialized.status, 202);
  }

  /** A tools/call with a progress token. */
  call(name: string, signal?: AbortSignal): Promise<Response> {
    const id = this.nextId++;
    const _meta: Record<string, unknown> = { progressToken: 'p1' };
    if (this.path === 'per-request') {
      _meta['io.modelcontextprotocol/protocolVersion'] = MODERN;
      _meta['io.modelcontextprotocol/clientInfo'] = { name: 'raw', version: '1' };
      _meta['io.modelcontextprotocol/clientCapabilities'] = {};
    }
    return this.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, _meta } }, signal);
  }

  post(body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: this.accept };
    if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
    if (this.path === 'session' && body.method !== 'initialize') headers['mcp-protocol-version'] = '2025-11-25';
    if (this.path === 'per-request') {
      Object.assign(headers, { 'mcp-protocol-version': MODERN, 'mcp-method': String(body.method) });
      const name = (body.params as { name?: string } | undefined)?.name;
      if (name) headers['mcp-name'] = name;
    }
    return fetch(this.url, { method: 'POST', headers, body: JSON.stringify(body), signal });
  }
}

/** The one message of a one-body reply, decoded by its Content-Type. */
async function oneBody(response: Response): Promise<{ id?: number; result?: { content: { text: string }[]; isError?: boolean } }> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const type = response.headers.get('content-type') ?? '';
  if (type.startsWith('application/msgpack')) return decode(bytes) as never;
  assert.match(type, /^application\/json/);
  return JSON.parse(new TextDecoder().decode(bytes));
}

async function events(response: Response, accept: AcceptKind): Promise<StreamEvent[]> {
  const all: StreamEvent[] = [];
  for await (const event of streamEvents(response.body!, accept === 'json' ? 'json' : 'msgpack')) all.push(event);
  return all;
}

for (const kind of kinds) {
  for (const path of ['session', 'per-request'] as const) {
    describe(`held replies (SPEC.md 9.6.2) on the ${path} path (${kind})`, { timeout: 60_000 }, () => {
      async function client(accept: AcceptKind, options: Partial<McpHttpHandlerOptions> = {}, slowMs?: number) {
        const served = await serve(kind, { stateless: path === 'per-request' ? true : undefined, ...options }, slowMs);
        const raw = new RawClient(served.url, path, ACCEPTS[accept]);
        await raw.open();
        return { ...served, raw };
      }

      it('a tool answered at once: one body, in the encoding each kind of client reads, no stream', async () => {
        for (const accept of ['json', 'msgpack', 'any'] as const) {
          const { raw } = await client(accept);
          const response = await raw.call('small');
          assert.equal(response.status, 200);
          const type = response.headers.get('content-type');
          if (accept === 'json') assert.equal(type, 'application/json');
          else if (accept === 'msgpack') assert.equal(type, 'application/msgpack', 'a 0.1.0 client asked for MessagePack and gets it');
          else assert.ok(type === 'application/json' || type === 'application/msgpack', `per reply (9.6 rule 3): ${type}`);
          // A JSON POST: the client knows the server already (9.6 rule 5), so no signal header.
          assert.equal(response.headers.get('mcp-msgpack-wire'), null);
          const message = await oneBody(response);
          assert.equal(message.id, 1);
          assert.deepEqual(message.result!.content, [{ type: 'text', text: 'hi' }]);
          if (path === 'session') assert.ok(response.headers.get('mcp-session-id'));
        }
      });

      it('a tool error (isError result) answered at once is one body too', async () => {
        const { raw } = await client('json');
        const response = await raw.call('fail');
        assert.equal(response.headers.get('content-type'), 'application/json');
        const message = await oneBody(response);
        assert.equal(message.result?.isError, true);
      });

      it('a tool that sends progress first gets the stream: progress, then the result', async () => {
        for (const accept of ['json', 'any'] as const) {
          const { raw } = await client(accept);
          const response = await raw.call('progress');
          assert.equal(response.status, 200);
          assert.equal(response.headers.get('content-type'), STREAM_TYPE[accept]);
          const seen = (await events(response, accept)).filter((event) => event.message);
          assert.deepEqual(
            seen.map((event) => event.message!.method ?? `result ${event.message!.id}`),
            ['notifications/progress', 'result 1'],
          );
        }
      });

      it('silence past the hold interval opens the stream, and the result comes on it', async () => {
        for (const accept of ['json', 'any'] as const) {
          const { raw } = await client(accept, {}, 700);
          const started = Date.now();
          const response = await raw.call('slow');
          assert.equal(response.headers.get('content-type'), STREAM_TYPE[accept]);
          // On 2025-11-25 the headers leave when the hold interval (keepAliveMs 200) passes, long before the
          // tool's 700 ms; on 2026-07-28 the status itself waits for the first message (SPEC.md 9.5).
          if (path === 'session') assert.ok(Date.now() - started < 650, `headers after ${Date.now() - started} ms`);
          const seen = (await events(response, accept)).filter((event) => event.message);
          assert.deepEqual(
            seen.map((event) => event.message!.id),
            [1],
          );
        }
      });

      it('a request cancelled while held: its POST gets 202 and its id is free again', async () => {
        if (path === 'per-request') return; // a cancellation names a request of a session
        const { raw, probe } = await client('json', { keepAliveMs: 60_000 });
        const pending = raw.call('wait');
        while (probe.waiting === 0) await sleep(5);
        const cancelled = await raw.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'test' } });
        assert.equal(cancelled.status, 202);
        const held = await pending;
        assert.equal(held.status, 202, 'nothing of it was answered');
        const again = await raw.post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'small', arguments: {} } });
        assert.deepEqual((await oneBody(again)).result!.content, [{ type: 'text', text: 'hi' }]);
        probe.release();
      });

      it("replyStreams: 'always' opens the stream at once, as before", async () => {
        const { raw } = await client('json', { replyStreams: 'always' });
        const response = await raw.call('small');
        assert.equal(response.headers.get('content-type'), 'text/event-stream');
        const seen = (await events(response, 'json')).filter((event) => event.message);
        assert.equal(seen.length, 1);
      });

      it('a client gone while held: nothing written, nothing left behind, the server goes on', async () => {
        // Were the client's leaving missed, the hold interval (200 ms) would open a stream nobody reads.
        const { raw, handler, probe } = await client('json');
        const abort = new AbortController();
        const pending = raw.call('wait', abort.signal).catch((error: unknown) => error);
        while (probe.waiting === 0) await sleep(5);
        abort.abort();
        assert.equal(((await pending) as Error).name, 'AbortError');
        await sleep(500);
        assert.equal(handler.openStreamCount, 0, 'no stream opened for the client that left');
        probe.release();
        while (probe.finished === 0) await sleep(5);
        await sleep(50);
        assert.equal(handler.openStreamCount, 0);
        if (path === 'session') {
          const again = await raw.call('small');
          assert.equal(again.headers.get('content-type'), 'application/json');
          assert.deepEqual((await oneBody(again)).result!.content, [{ type: 'text', text: 'hi' }]);
        }
      });
    });
  }

  describe(`held replies: every client that accepts a stream reads the one body (${kind})`, { timeout: 60_000 }, () => {
    type Made = { connect(): Promise<void>; call(name: string, onprogress?: () => void): Promise<unknown>; close(): Promise<void> };
    const clients: [string, (url: URL, fetch: typeof globalThis.fetch) => Made][] = [
      ['the stock SDK v1 client', (url, fetch) => sdkV1(new StreamableHTTPClientTransportV1(url, { fetch }))],
      ['the stock SDK v2 client', (url, fetch) => sdkV2(new StreamableHTTPClientTransport(url, { fetch }))],
      ['our client under SDK v1', (url, fetch) => sdkV1(new HttpMsgpackClientTransport(url, { fetch }))],
      ['our client under SDK v2', (url, fetch) => sdkV2(new HttpMsgpackClientTransport(url, { fetch }) as never)],
    ];
    for (const [name, make] of clients) {
      it(`${name}: a result alone is one body, progress first a stream; both read`, async () => {
        const { url } = await serve(kind);
        const types: string[] = [];
        const recording = (async (input: string | URL | Request, init?: RequestInit) => {
          const response = await fetch(input, init);
          if (init?.method === 'POST' && response.status === 200) types.push(response.headers.get('content-type') ?? '');
          return response;
        }) as typeof fetch;
        const client = make(url, recording);
        await client.connect();
        try {
          assert.deepEqual(await client.call('small'), [{ type: 'text', text: 'hi' }]);
          assert.match(types.at(-1)!, /^application\/(json|msgpack)$/);
          let progressed = 0;
          assert.deepEqual(await client.call('progress', () => progressed++), [{ type: 'text', text: 'done' }]);
          assert.match(types.at(-1)!, /^(text\/event-stream|application\/vnd\.mcp-msgpack\.stream)$/);
          assert.equal(progressed, 1);
        } finally {
          await client.close();
        }
      });
    }
  });

  describe(`held replies with an event store (${kind})`, { timeout: 60_000 }, () => {
    it("default 'always': the reply is a resumable stream from its first byte", async () => {
      const eventStore = new MemoryEventStore();
      const served = await serve(kind, { eventStore });
      const raw = new RawClient(served.url, 'session', ACCEPTS.json);
      await raw.open();
      const response = await raw.call('small');
      assert.equal(response.headers.get('content-type'), 'text/event-stream');
      const seen = await events(response, 'json');
      assert.ok(seen[0]!.id && !seen[0]!.message, 'primed');
    });

    it("'when-needed': an answer at once is one body and nothing is stored; progress first gets a primed stream", async () => {
      const eventStore = new MemoryEventStore();
      const stored = eventStore.events;
      const served = await serve(kind, { eventStore, replyStreams: 'when-needed' });
      const raw = new RawClient(served.url, 'session', ACCEPTS.json);
      await raw.open();
      const before = stored.length;
      const one = await raw.call('small');
      assert.equal(one.headers.get('content-type'), 'application/json');
      await one.arrayBuffer();
      assert.equal(stored.length, before, 'a one-body reply is not stored');
      const streamed = await raw.call('progress');
      assert.equal(streamed.headers.get('content-type'), 'text/event-stream');
      const seen = await events(streamed, 'json');
      assert.ok(seen[0]!.id && !seen[0]!.message, 'primed before the held progress');
      assert.deepEqual(
        seen.slice(1).map((event) => event.message!.method ?? 'result'),
        ['notifications/progress', 'result'],
      );
      assert.ok(
        seen.slice(1).every((event) => event.id),
        'each event stored, with its id',
      );
    });
  });
}

function sdkV1(transport: StreamableHTTPClientTransportV1 | HttpMsgpackClientTransport) {
  const client = new ClientV1({ name: 'v1', version: '1.0.0' });
  return {
    connect: () => client.connect(transport),
    call: async (name: string, onprogress?: () => void) => (await client.callTool({ name, arguments: {} }, undefined, onprogress ? { onprogress } : undefined)).content,
    close: () => client.close(),
  };
}

function sdkV2(transport: StreamableHTTPClientTransport) {
  const client = new Client({ name: 'v2', version: '1.0.0' });
  return {
    connect: () => client.connect(transport),
    call: async (name: string, onprogress?: () => void) => (await client.callTool({ name, arguments: {} }, onprogress ? { onprogress } : undefined)).content,
    close: () => client.close(),
  };
}
