// The HTTP transports with the unmodified SDK McpServer and Client, on both wires, over node:http (and
// Bun.serve on Bun): tools, progress order, sampling and elicitation, sessions, stateless mode, the GET
// stream, and resumption through an EventStore.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { HttpMsgpackClientTransport, type EncodingPolicy, type WireFallback } from 'mcp-msgpack-transport';
import { MemoryEventStore, serverKinds, startTestServer, textOf, waitUntil, type TestHttpServer } from './fixtures/http-helpers.js';

const LIMIT = 20_000;

async function connect(url: URL, wire: 'msgpack' | 'json', extra: { fetch?: typeof fetch; encoding?: EncodingPolicy } = {}) {
  const fallbacks: WireFallback[] = [];
  const errors: Error[] = [];
  const client = new Client({ name: 'http-test-client', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const first = request.params.messages[0]!.content as { text: string };
    return { role: 'assistant', model: 'test', content: { type: 'text', text: first.text.toUpperCase() } };
  });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }));
  const transport = new HttpMsgpackClientTransport(url, {
    wire,
    onwirefallback: (fallback) => fallbacks.push(fallback),
    reconnectionOptions: { initialReconnectionDelay: 20, maxReconnectionDelay: 100, reconnectionDelayGrowFactor: 1.5, maxRetries: 3 },
    ...(extra.fetch ? { fetch: extra.fetch } : {}),
    encoding: extra.encoding,
  });
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return { client, transport, fallbacks, errors };
}

for (const kind of serverKinds) {
  for (const wire of ['msgpack', 'json'] as const) {
    describe(`HTTP ${kind}, our client on ${wire}`, { timeout: LIMIT }, () => {
      let server: TestHttpServer;
      before(async () => {
        server = await startTestServer(kind);
      });
      after(async () => {
        await server.close();
      });

      it('calls a tool and keeps the wire it started with', async () => {
        const { client, transport, fallbacks } = await connect(server.url, wire);
        try {
          const result = await client.callTool({ name: 'echo', arguments: { text: 'héllo ✓' } });
          assert.equal(textOf(result), 'héllo ✓');
          assert.equal(transport.wire, wire);
          assert.deepEqual(fallbacks, []);
          assert.ok(transport.sessionId);
        } finally {
          await client.close();
        }
      });

      it('delivers every progress notification, in order, before the result', async () => {
        const { client } = await connect(server.url, wire);
        try {
          const seen: number[] = [];
          const result = await client.callTool({ name: 'count', arguments: { steps: 20 } }, undefined, {
            onprogress: (progress) => seen.push(progress.progress),
          });
          assert.equal(textOf(result), 'counted 20');
          assert.deepEqual(
            seen,
            Array.from({ length: 20 }, (_, i) => i + 1),
          );
        } finally {
          await client.close();
        }
      });

      it('round-trips sampling and elicitation requests made while a tool runs', async () => {
        const { client } = await connect(server.url, wire);
        try {
          assert.equal(textOf(await client.callTool({ name: 'ask-model', arguments: { question: 'ping' } })), 'model said: PING');
          assert.equal(textOf(await client.callTool({ name: 'ask-user', arguments: {} })), 'accept:Ada');
        } finally {
          await client.close();
        }
      });

      it('delivers a request the server sends the moment the client is initialized (before the GET stream opens)', async () => {
        const client = new Client({ name: 'roots-client', version: '1.0.0' }, { capabilities: { roots: {} } });
        client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }] }));
        await client.connect(new HttpMsgpackClientTransport(server.url, { wire }));
        try {
          let seen = '';
          for (let attempt = 0; attempt < 100 && seen !== '2'; attempt++) {
            seen = textOf(await client.callTool({ name: 'roots-seen', arguments: {} }));
            if (seen !== '2') await new Promise((resolve) => setTimeout(resolve, 20));
          }
          assert.equal(seen, '2');
        } finally {
          await client.close();
        }
      });

      it('runs concurrent calls on one session, with no listener warning however many are in flight', async () => {
        const warnings: Error[] = [];
        const onWarning = (warning: Error) => void warnings.push(warning);
        process.on('warning', onWarning);
        const { client } = await connect(server.url, wire);
        try {
          const texts = await Promise.all(Array.from({ length: 24 }, (_, i) => client.callTool({ name: 'echo', arguments: { text: `n${i}` } })));
          assert.deepEqual(
            texts.map(textOf),
            Array.from({ length: 24 }, (_, i) => `n${i}`),
          );
          await new Promise((resolve) => setImmediate(resolve));
          assert.deepEqual(
            warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message),
            [],
          );
        } finally {
          process.off('warning', onWarning);
          await client.close();
        }
      });

      it('carries tools/list_changed on the GET stream', async () => {
        const { client } = await connect(server.url, wire);
        try {
          let changed = 0;
          client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
            changed++;
          });
          await waitUntil(() => server.handler.openStreamCount >= 1, 'the GET stream to open');
          await client.callTool({ name: 'add-tool', arguments: { name: `extra-${wire}-${kind.replace(':', '-')}` } });
          await waitUntil(() => changed >= 1, 'tools/list_changed');
          const tools = await client.listTools();
          assert.ok(tools.tools.some((tool) => tool.name === `extra-${wire}-${kind.replace(':', '-')}`));
        } finally {
          await client.close();
        }
      });

      it('ends the session on DELETE; the old session id then gets 404', async () => {
        const { client, transport } = await connect(server.url, wire);
        const sessionId = transport.sessionId!;
        const before = server.handler.sessionCount;
        await transport.terminateSession();
        assert.equal(transport.sessionId, undefined);
        assert.equal(server.handler.sessionCount, before - 1);
        const response = await fetch(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
        assert.equal(response.status, 404);
        assert.equal((await response.json()).error.code, -32001);
        await client.close();
      });
    });

    describe(`HTTP ${kind} stateless, our client on ${wire}`, { timeout: LIMIT }, () => {
      let server: TestHttpServer;
      before(async () => {
        server = await startTestServer(kind, { stateless: true });
      });
      after(async () => {
        await server.close();
      });

      it('serves calls with no session', async () => {
        const { client, transport } = await connect(server.url, wire);
        try {
          assert.equal(transport.sessionId, undefined);
          assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'x' } })), 'x');
          const seen: number[] = [];
          await client.callTool({ name: 'count', arguments: { steps: 3 } }, undefined, { onprogress: (p) => seen.push(p.progress) });
          assert.deepEqual(seen, [1, 2, 3]);
          assert.equal(server.handler.sessionCount, 0);
        } finally {
          await client.close();
        }
      });
    });

    describe(`HTTP ${kind} resumption, our client on ${wire}`, { timeout: LIMIT }, () => {
      let server: TestHttpServer;
      let store: MemoryEventStore;
      before(async () => {
        store = new MemoryEventStore();
        server = await startTestServer(kind, { eventStore: store, retryInterval: 20 });
      });
      after(async () => {
        await server.close();
      });

      it('resumes a reply stream the server cut, with Last-Event-ID, and loses nothing', async () => {
        const { client } = await connect(server.url, wire);
        try {
          const seen: number[] = [];
          const result = await client.callTool({ name: 'cut-and-resume', arguments: {} }, undefined, { onprogress: (p) => seen.push(p.progress) });
          assert.equal(textOf(result), 'resumed');
          assert.deepEqual(seen, [1, 2]);
          assert.ok(store.events.length >= 4, 'events were stored');
        } finally {
          await client.close();
        }
      });
    });
  }
}

describe('HTTP wire on the network', { timeout: LIMIT }, () => {
  let server: TestHttpServer;
  before(async () => {
    // 'smallest' on the server too: every reply MessagePack, whatever its shape (SPEC.md 9.6).
    server = await startTestServer('node:http', { encoding: 'smallest' });
  });
  after(async () => {
    await server.close();
  });

  it('sends application/msgpack and gets msgpack-v1 back: no JSON on the way', async () => {
    const seen: { request?: string | null; response: string | null }[] = [];
    const recording: typeof fetch = async (url, init) => {
      const response = await fetch(url, init);
      seen.push({ request: new Headers(init?.headers).get('content-type'), response: response.headers.get('content-type') });
      return response;
    };
    // 'smallest': MessagePack for every request (the default sends small ones as JSON to our server, SPEC.md 9.6).
    const { client } = await connect(server.url, 'msgpack', { fetch: recording, encoding: 'smallest' });
    try {
      await client.callTool({ name: 'echo', arguments: { text: 'bytes' } });
      const posts = seen.filter((entry) => entry.request);
      assert.ok(posts.length >= 3);
      for (const post of posts) assert.equal(post.request, 'application/msgpack');
      const bodies = posts.map((post) => post.response).filter(Boolean);
      assert.ok(bodies.length >= 2);
      // Each request answered by its result alone: one MessagePack body, no stream (SPEC.md 9.6.2).
      for (const type of bodies) assert.equal(type, 'application/msgpack');
      assert.ok(!seen.some((entry) => /json|event-stream/.test(entry.response ?? '')), JSON.stringify(seen));
    } finally {
      await client.close();
    }
  });
});
