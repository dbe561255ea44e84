// The tools/list prefetch (http/client/tools-list-prefetch.ts): on 2026-07-28, SDK v2's Client opening with
// server/discover, our client transport posts a tools/list beside it and answers the SDK's first listTools()
// from it. Shown by what the network carried (a counting fetch), not a clock: the SDK's result is the one it
// gets without the prefetch, one tools/list per opening goes out, later or paged lists go out, and a failed
// prefetch (an error, a 500, a 2025-era or JSON-only server, close() while it is out) changes nothing the
// SDK or onerror sees.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { HttpMsgpackClientTransport, McpHttpHandler, type HttpMsgpackClientOptions, type WireFallback } from 'mcp-msgpack-transport';
import { hostFetch } from './fixtures/fetch-host.js';
import { serverKinds, startStockV1Server, waitUntil, type ServerKind } from './fixtures/http-helpers.js';

const LIMIT = 30_000;
const MODERN = '2026-07-28';
/** The prefetch's id (tools-list-prefetch.ts); MessagePack keeps strings as UTF-8, so the body's text shows it. */
const PREFETCH_ID = 'mcp-msgpack/tools-list';

function makeServer(): McpServer {
  const server = new McpServer({ name: 'prefetch-server', version: '1.0.0' });
  server.registerTool('echo', { description: 'Says it back', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('count', { inputSchema: z.object({ n: z.number() }), outputSchema: z.object({ n: z.number() }) }, async ({ n }) => ({ content: [], structuredContent: { n } }));
  return server;
}

type Handle = (request: Request) => Response | Promise<Response>;
interface Endpoint {
  url: URL;
  close(): Promise<void>;
}

/** Our McpHttpHandler or SDK v2's createMcpHandler behind `wrap` (which may answer a request itself). */
async function endpoint(stack: 'ours' | 'stock', kind: ServerKind, wrap: (request: Request, next: Handle) => Response | Promise<Response> = (r, next) => next(r)): Promise<Endpoint> {
  const ours = stack === 'ours' ? new McpHttpHandler({ createServer: makeServer as never }) : undefined;
  const stock = stack === 'stock' ? createMcpHandler(makeServer) : undefined;
  const next: Handle = (request) => (ours ? ours.handle(request) : stock!.fetch(request));
  const hosted = await hostFetch(kind, (request) => wrap(request, next));
  return {
    url: hosted.url,
    close: async () => {
      await ours?.close();
      await stock?.close();
      await hosted.close();
    },
  };
}

async function isPrefetch(request: Request): Promise<boolean> {
  if (request.headers.get('mcp-method') !== 'tools/list') return false;
  return new TextDecoder('latin1').decode(await request.clone().arrayBuffer()).includes(PREFETCH_ID);
}

interface Sent {
  method: string | null;
  prefetch: boolean;
  status?: number;
  signal?: AbortSignal;
}

/** A fetch that records each POST: its method, whether it is the prefetch, its status, its signal. */
function countingFetch(sent: Sent[]): typeof fetch {
  return (async (url: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    const body = init?.body;
    const text = typeof body === 'string' ? body : body instanceof Uint8Array ? new TextDecoder('latin1').decode(body) : '';
    // A 2025-era request has no Mcp-Method header; its body names the method.
    const entry: Sent = { method: headers.get('mcp-method') ?? (text.includes('tools/list') ? 'tools/list' : null), prefetch: text.includes(PREFETCH_ID), signal: init?.signal ?? undefined };
    if (init?.method === 'POST') sent.push(entry);
    const response = await fetch(url, init);
    entry.status = response.status;
    return response;
  }) as typeof fetch;
}

interface Opening {
  client: Client;
  transport: HttpMsgpackClientTransport;
  sent: Sent[];
  errors: Error[];
  fallbacks: WireFallback[];
}

async function connect(url: URL, options: HttpMsgpackClientOptions = {}): Promise<Opening> {
  const sent: Sent[] = [];
  const errors: Error[] = [];
  const fallbacks: WireFallback[] = [];
  // The counting fetch is a caller's fetch, with which the prefetch is off unless asked for: asked for here,
  // unless `options` says otherwise (`prefetchToolsList: undefined` for the default).
  const transport = new HttpMsgpackClientTransport(url, { fetch: countingFetch(sent), onwirefallback: (fallback) => fallbacks.push(fallback), prefetchToolsList: true, ...options });
  transport.onerror = (error) => errors.push(error);
  const client = new Client({ name: 'prefetch-client', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(transport as never);
  return { client, transport, sent, errors, fallbacks };
}

const toolsLists = (sent: Sent[]) => sent.filter((entry) => entry.method === 'tools/list');

/** listTools() with the prefetch on and off, on fresh transports: the results, and what each opening sent. */
async function bothWays(url: URL, options: HttpMsgpackClientOptions = {}): Promise<{ on: Opening; off: Opening; onResult: unknown; offResult: unknown }> {
  const off = await connect(url, { ...options, prefetchToolsList: false });
  const offResult = await off.client.listTools();
  await off.client.close();
  const on = await connect(url, options);
  const onResult = await on.client.listTools();
  return { on, off, onResult, offResult };
}

describe('tools/list prefetch on 2026-07-28', { timeout: LIMIT }, () => {
  for (const kind of serverKinds) {
    for (const [stack, options] of [
      ['our server', {}],
      ['our server, native bytes offered', { nativeBytes: true }],
      ["SDK v2's createMcpHandler, JSON wire", { wire: 'json' }],
    ] as const) {
      it(`${kind}, ${stack}: listTools() gets the unprefetched result, from one tools/list per opening`, async () => {
        const server = await endpoint(stack.startsWith('our server') ? 'ours' : 'stock', kind);
        try {
          const { on, off, onResult, offResult } = await bothWays(server.url, options);
          assert.equal(on.client.getNegotiatedProtocolVersion(), MODERN);
          assert.deepEqual(onResult, offResult);
          assert.deepEqual(
            toolsLists(on.sent).map((entry) => [entry.prefetch, entry.status]),
            [[true, 200]],
          );
          assert.deepEqual(
            toolsLists(off.sent).map((entry) => entry.prefetch),
            [false],
          );
          // A second list, and a paged one, go out.
          assert.deepEqual(await on.client.listTools(), offResult);
          await on.client.listTools({ cursor: 'next' }).catch(() => {});
          assert.deepEqual(
            toolsLists(on.sent).map((entry) => entry.prefetch),
            [true, false, false],
          );
          assert.deepEqual([...on.errors, ...off.errors], []);
          await on.client.close();
        } finally {
          await server.close();
        }
      });
    }
  }

  it("SDK v2's createMcpHandler on first contact: the MessagePack prefetch is refused (415) and dropped; the fallback is the discover's, as without it", async () => {
    const server = await endpoint('stock', 'node:http');
    try {
      const { on, off, onResult, offResult } = await bothWays(server.url);
      assert.deepEqual(onResult, offResult);
      assert.deepEqual(
        toolsLists(on.sent).map((entry) => [entry.prefetch, entry.status]),
        [
          [true, 415],
          [false, 200],
        ],
      );
      assert.deepEqual(on.fallbacks, off.fallbacks);
      assert.equal(on.fallbacks.length, 1);
      assert.deepEqual([...on.errors, ...off.errors], []);
      await on.client.close();
    } finally {
      await server.close();
    }
  });

  it('prefetchToolsList: false posts no prefetch, nor does the default with a fetch of the caller', async () => {
    const server = await endpoint('ours', 'node:http');
    try {
      for (const prefetchToolsList of [false, undefined]) {
        const opening = await connect(server.url, { prefetchToolsList });
        assert.deepEqual(
          opening.sent.map((entry) => entry.method),
          ['server/discover'],
        );
        await opening.client.close();
      }
    } finally {
      await server.close();
    }
  });

  for (const [failure, answer] of [
    ['a 500', () => new Response('boom', { status: 500 })],
    ['a JSON-RPC error', () => Response.json({ jsonrpc: '2.0', id: PREFETCH_ID, error: { code: -32603, message: 'not now' } }, { headers: { 'mcp-msgpack-wire': 'v1' } })],
    ['a reply that is not a result', () => Response.json({ jsonrpc: '2.0', id: 'someone-else', result: { tools: [] } }, { headers: { 'mcp-msgpack-wire': 'v1' } })],
  ] as const) {
    it(`the prefetch answered with ${failure}: dropped, the SDK's own tools/list goes out, no onerror`, async () => {
      const server = await endpoint('ours', 'node:http', async (request, next) => ((await isPrefetch(request)) ? answer() : next(request)));
      try {
        const { on, onResult, offResult } = await bothWays(server.url);
        assert.deepEqual(onResult, offResult);
        assert.deepEqual(
          toolsLists(on.sent).map((entry) => entry.prefetch),
          [true, false],
        );
        assert.deepEqual(on.errors, []);
        assert.equal(on.transport.wire, 'msgpack');
        await on.client.close();
      } finally {
        await server.close();
      }
    });
  }

  for (const options of [{}, { wire: 'json' }] as const) {
    it(`a 2025-11-25-only server (the SDK v1 server${options.wire ? ', JSON wire' : ''}): the connection falls back to initialize and works, onerror as without the prefetch`, async () => {
      const server = await startStockV1Server();
      try {
        const { on, off, onResult, offResult } = await bothWays(server.url, options);
        assert.notEqual(on.client.getNegotiatedProtocolVersion(), MODERN);
        assert.deepEqual(onResult, offResult);
        // The SDK's own tools/list went out (a prefetch answered at all was for another revision).
        assert.equal(toolsLists(on.sent).filter((entry) => !entry.prefetch && entry.status === 200).length, 1);
        // What the SDK's refused discover reported, and nothing more.
        const messages = (errors: Error[]) => errors.map((error) => error.message);
        assert.deepEqual(messages(on.errors), messages(off.errors));
        await on.client.close();
      } finally {
        await server.close();
      }
    });
  }

  it('on by default with the default fetch: the server sees the prefetch and no other tools/list', async () => {
    const seen: string[] = [];
    const server = await endpoint('ours', 'node:http', async (request, next) => {
      if (request.headers.get('mcp-method') === 'tools/list') seen.push((await isPrefetch(request)) ? 'prefetch' : 'sdk');
      return next(request);
    });
    try {
      const client = new Client({ name: 'prefetch-client', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      const transport = new HttpMsgpackClientTransport(server.url);
      const errors: Error[] = [];
      transport.onerror = (error) => errors.push(error);
      await client.connect(transport as never);
      assert.equal((await client.listTools()).tools.length, 2);
      assert.deepEqual(seen, ['prefetch']);
      assert.deepEqual(errors, []);
      await client.close();
    } finally {
      await server.close();
    }
  });

  it('with an authProvider: no prefetch unless asked for; asked for, a token the discover refreshes leaves the 401 of the prefetch unreported', async () => {
    const seen: string[] = [];
    const server = await endpoint('ours', 'node:http', async (request, next) => {
      if (request.headers.get('mcp-method') === 'tools/list') seen.push((await isPrefetch(request)) ? 'prefetch' : 'sdk');
      return request.headers.get('authorization') === 'Bearer fresh' ? next(request) : new Response('', { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
    });
    try {
      const provider = () => {
        let token = 'expired';
        return { token: async () => token, onUnauthorized: async () => void (token = 'fresh') };
      };
      for (const prefetchToolsList of [undefined, true]) {
        seen.length = 0;
        const client = new Client({ name: 'prefetch-client', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
        const transport = new HttpMsgpackClientTransport(server.url, { authProvider: provider(), prefetchToolsList });
        const errors: Error[] = [];
        transport.onerror = (error) => errors.push(error);
        await client.connect(transport as never);
        assert.equal((await client.listTools()).tools.length, 2);
        // Asked for, the prefetch went with the expired token (refused, dropped) and the SDK's went out.
        assert.deepEqual(seen, prefetchToolsList ? ['prefetch', 'sdk'] : ['sdk']);
        assert.deepEqual(errors, []);
        await client.close();
      }
    } finally {
      await server.close();
    }
  });

  it('close() while the prefetch is out aborts it, and reports nothing', async () => {
    const { server, held } = await holdingPrefetch();
    try {
      const opening = await connect(server.url);
      await waitUntil(() => held.release !== undefined, 'the prefetch at the server');
      const prefetch = opening.sent.find((entry) => entry.prefetch)!;
      assert.equal(prefetch.signal?.aborted, false);
      await opening.client.close();
      assert.equal(prefetch.signal?.aborted, true);
      assert.deepEqual(opening.errors, []);
      held.release!();
    } finally {
      await server.close();
    }
  });

  it("the SDK's listTools() while the prefetch is still out waits for it, and is answered from it", async () => {
    const { server, held } = await holdingPrefetch();
    try {
      const opening = await connect(server.url);
      await waitUntil(() => held.release !== undefined, 'the prefetch at the server');
      const listing = opening.client.listTools();
      // Not a timing assertion: the SDK's request reaches the transport while the prefetch is held (else it
      // finds the result kept, which the other tests show).
      await new Promise((resolve) => setTimeout(resolve, 50));
      held.release!();
      const { tools } = await listing;
      assert.deepEqual(
        tools.map((tool) => tool.name),
        ['echo', 'count'],
      );
      assert.deepEqual(
        toolsLists(opening.sent).map((entry) => entry.prefetch),
        [true],
      );
      assert.deepEqual(opening.errors, []);
      await opening.client.close();
    } finally {
      await server.close();
    }
  });
});

/** Our server, holding the prefetch until `held.release()` is called. */
async function holdingPrefetch(): Promise<{ server: Endpoint; held: { release?: () => void } }> {
  const held: { release?: () => void } = {};
  const server = await endpoint('ours', 'node:http', async (request, next) => {
    if (!(await isPrefetch(request))) return next(request);
    await new Promise<void>((resolve) => (held.release = resolve));
    return next(request);
  });
  return { server, held };
}
