// The session's opening (docs/MEASUREMENTS.md, the link scenario): to a server that speaks msgpack-v1, our
// client posts notifications/initialized without waiting for its 202, so the first request leaves beside it
// (such a server waits for the notification when a request overtakes it, SPEC.md 9.4); to a server that
// answers in JSON only (the SDK's own), it keeps the stock client's order, the 202 first. A fetch that holds
// the notification's answer back shows which: the order of what it saw, not a clock.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { serverKinds, startStockV1Server, startTestServer, waitUntil } from './fixtures/http-helpers.js';

const LIMIT = 30_000;
/** How long the notification's answer is held for a tools/list that does not come (it then never came first). */
const HOLD_MS = 3_000;

/** The JSON-RPC method a request body carries (MessagePack keeps strings as UTF-8 bytes, so text finds it). */
function methodOf(body: unknown): string | undefined {
  const text = typeof body === 'string' ? body : body instanceof Uint8Array ? new TextDecoder('latin1').decode(body) : '';
  return ['notifications/initialized', 'tools/list', 'initialize'].find((method) => text.includes(method));
}

/** A fetch that records what it sent and holds the notification's answer until tools/list is sent (or HOLD_MS). */
function holdingFetch(seen: string[]): typeof fetch {
  return (async (url: string | URL | Request, init?: RequestInit) => {
    const method = init?.method === 'POST' ? methodOf(init.body) : undefined;
    if (method) seen.push(`sent ${method}`);
    const response = await fetch(url, init);
    if (method === 'notifications/initialized') {
      await waitUntil(() => seen.includes('sent tools/list'), 'tools/list', HOLD_MS).catch(() => {});
      seen.push('answered notifications/initialized');
    }
    return response;
  }) as typeof fetch;
}

/** A fetch that sends the notification only once tools/list is answered: the request overtakes it for sure. */
function overtakingFetch(seen: string[]): typeof fetch {
  return (async (url: string | URL | Request, init?: RequestInit) => {
    const method = init?.method === 'POST' ? methodOf(init.body) : undefined;
    if (method === 'notifications/initialized') await waitUntil(() => seen.includes('answered tools/list 400'), 'tools/list refused', HOLD_MS).catch(() => {});
    if (method) seen.push(`sent ${method}`);
    const response = await fetch(url, init);
    if (method) seen.push(`answered ${method} ${response.status}`);
    return response;
  }) as typeof fetch;
}

async function open(url: URL, seen: string[], makeFetch = holdingFetch): Promise<{ tools: string[]; errors: Error[] }> {
  const errors: Error[] = [];
  const transport = new HttpMsgpackClientTransport(url, { fetch: makeFetch(seen) });
  transport.onerror = (error) => errors.push(error);
  const client = new Client({ name: 'opening', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  // What close() aborts (the GET stream, maybe still opening) is not the opening's error.
  const opening = [...errors];
  await client.close();
  return { tools: tools.map((tool) => tool.name), errors: opening };
}

describe('the opening: notifications/initialized and the first request', { timeout: LIMIT }, () => {
  for (const kind of serverKinds) {
    it(`${kind}: to our server the first request leaves before the notification is answered, and is served`, async () => {
      const server = await startTestServer(kind);
      try {
        const seen: string[] = [];
        const { tools, errors } = await open(server.url, seen);
        assert.ok(seen.indexOf('sent tools/list') < seen.indexOf('answered notifications/initialized'), seen.join(' > '));
        assert.ok(seen.indexOf('sent notifications/initialized') < seen.indexOf('sent tools/list'), seen.join(' > '));
        assert.ok(tools.length > 0);
        assert.deepEqual(errors, []);
      } finally {
        await server.close();
      }
    });
  }

  it('a request refused as not initialized yet (a server that does not wait) goes again once the notification is accepted', async () => {
    const server = await startTestServer('node:http', { initializedWaitMs: 0 });
    try {
      const seen: string[] = [];
      const { tools, errors } = await open(server.url, seen, overtakingFetch);
      assert.deepEqual(seen.slice(2), ['sent tools/list', 'answered tools/list 400', 'sent notifications/initialized', 'answered notifications/initialized 202', 'sent tools/list', 'answered tools/list 200']);
      assert.ok(tools.length > 0);
      assert.deepEqual(errors, []);
    } finally {
      await server.close();
    }
  });

  it("to the SDK's JSON-only server the notification's 202 comes first, as with the stock client", async () => {
    const server = await startStockV1Server();
    try {
      const seen: string[] = [];
      const { tools } = await open(server.url, seen);
      assert.ok(seen.indexOf('answered notifications/initialized') < seen.indexOf('sent tools/list'), seen.join(' > '));
      assert.ok(tools.length > 0);
    } finally {
      await server.close();
    }
  });
});
