// Interop both ways: the SDK's own StreamableHTTPClientTransport against our server, and our client
// against the SDK's own StreamableHTTPServerTransport (it answers 415 to MessagePack, so we fall back).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CreateMessageRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { HttpMsgpackClientTransport, HttpMsgpackServerTransport, type WireFallback } from 'mcp-msgpack-transport';
import { createHttpTestServer, MemoryEventStore, serverKinds, startTestServer, textOf, waitUntil, type TestHttpServer } from './fixtures/http-helpers.js';

const LIMIT = 20_000;

for (const kind of serverKinds) {
  describe(`the SDK's StreamableHTTPClientTransport against our server (${kind})`, { timeout: LIMIT }, () => {
    let server: TestHttpServer;
    before(async () => {
      server = await startTestServer(kind, { eventStore: new MemoryEventStore(), retryInterval: 20 });
    });
    after(async () => {
      await server.close();
    });

    it('calls tools, gets progress in order, answers sampling, hears list_changed, resumes, deletes', async () => {
      const client = new Client({ name: 'sdk-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
      client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'ok' } }));
      let changed = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        changed++;
      });
      const transport = new StreamableHTTPClientTransport(server.url, {
        reconnectionOptions: { initialReconnectionDelay: 20, maxReconnectionDelay: 100, reconnectionDelayGrowFactor: 1.5, maxRetries: 3 },
      });
      await client.connect(transport);
      try {
        assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'json' } })), 'json');
        const seen: number[] = [];
        await client.callTool({ name: 'count', arguments: { steps: 5 } }, undefined, { onprogress: (p) => seen.push(p.progress) });
        assert.deepEqual(seen, [1, 2, 3, 4, 5]);
        assert.equal(textOf(await client.callTool({ name: 'ask-model', arguments: { question: 'q' } })), 'model said: ok');
        await waitUntil(() => server.handler.openStreamCount >= 1, 'the GET stream');
        await client.callTool({ name: 'add-tool', arguments: { name: 'late' } });
        await waitUntil(() => changed >= 1, 'tools/list_changed');
        const resumed: number[] = [];
        const result = await client.callTool({ name: 'cut-and-resume', arguments: {} }, undefined, { onprogress: (p) => resumed.push(p.progress) });
        assert.equal(textOf(result), 'resumed');
        assert.deepEqual(resumed, [1, 2]);
        const sessions = server.handler.sessionCount;
        await transport.terminateSession();
        assert.equal(server.handler.sessionCount, sessions - 1);
      } finally {
        await client.close();
      }
    });
  });
}

/** The transport classes both take these options and serve node:http with handleRequest(req, res). */
type HandRoutedTransport = Transport & { handleRequest(req: IncomingMessage, res: ServerResponse): Promise<void> };
type SessionOptions = { sessionIdGenerator: () => string; onsessioninitialized: (sessionId: string) => void };

interface RoutedByHand {
  url: URL;
  close(): Promise<void>;
}

/** A node:http server that routes requests to one transport per session by hand, as the SDK's examples do. */
async function routeByHand<T extends HandRoutedTransport>(make: (options: SessionOptions) => T): Promise<RoutedByHand> {
  const transports = new Map<string, T>();
  const http: Server = createServer(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? transports.get(id) : undefined;
    if (!transport) {
      const made = make({ sessionIdGenerator: randomUUID, onsessioninitialized: (sessionId) => void transports.set(sessionId, made) });
      await createHttpTestServer().connect(made);
      transport = made;
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`),
    async close() {
      for (const transport of transports.values()) await transport.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

describe("our client against the SDK's StreamableHTTPServerTransport", { timeout: LIMIT }, () => {
  let routed: RoutedByHand;
  let url: URL;
  before(async () => {
    routed = await routeByHand((options) => new StreamableHTTPServerTransport(options));
    url = routed.url;
  });
  after(() => routed.close());

  it('falls back to JSON on the 415, says so once, and then works as a JSON client', async () => {
    const fallbacks: WireFallback[] = [];
    const transport = new HttpMsgpackClientTransport(url, { onwirefallback: (fallback) => fallbacks.push(fallback) });
    const client = new Client({ name: 'our-client', version: '1.0.0' });
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changed++;
    });
    await client.connect(transport);
    try {
      assert.equal(transport.wire, 'json');
      assert.deepEqual(fallbacks, [{ from: 'msgpack', to: 'json', reason: 'unsupported-media-type', status: 415 }]);
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'fallback' } })), 'fallback');
      const seen: number[] = [];
      await client.callTool({ name: 'count', arguments: { steps: 4 } }, undefined, { onprogress: (p) => seen.push(p.progress) });
      assert.deepEqual(seen, [1, 2, 3, 4]);
      // The GET stream is open once the server can push to it.
      for (let attempt = 0; attempt < 50 && changed === 0; attempt++) {
        await client.callTool({ name: 'add-tool', arguments: { name: `t${attempt}` } });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(changed >= 1);
      assert.equal(fallbacks.length, 1);
      await transport.terminateSession();
    } finally {
      await client.close();
    }
  });
});

describe('HttpMsgpackServerTransport routed by hand, as with the SDK (node:http req/res)', { timeout: LIMIT }, () => {
  let routed: RoutedByHand;
  let url: URL;
  before(async () => {
    routed = await routeByHand((options) => new HttpMsgpackServerTransport(options));
    url = routed.url;
  });
  after(() => routed.close());

  for (const which of ['our client (msgpack)', "the SDK's client (json)"] as const) {
    it(`serves ${which}: tools, progress, sampling`, async () => {
      const transport = which === 'our client (msgpack)' ? new HttpMsgpackClientTransport(url) : new StreamableHTTPClientTransport(url);
      const client = new Client({ name: 'c', version: '1.0.0' }, { capabilities: { sampling: {} } });
      client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'hi' } }));
      await client.connect(transport);
      try {
        if (transport instanceof HttpMsgpackClientTransport) assert.equal(transport.wire, 'msgpack');
        assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: which } })), which);
        const seen: number[] = [];
        await client.callTool({ name: 'count', arguments: { steps: 3 } }, undefined, { onprogress: (p) => seen.push(p.progress) });
        assert.deepEqual(seen, [1, 2, 3]);
        assert.equal(textOf(await client.callTool({ name: 'ask-model', arguments: { question: 'q' } })), 'model said: hi');
      } finally {
        await client.close();
      }
    });
  }
});
