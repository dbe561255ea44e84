// The HTTP client's per-send options from SDK v2's Transport interface: `headers` (extra HTTP headers for one
// message's request, never the transport's own), `requestSignal` (aborts that one request and its reply
// stream, silently, leaving the transport usable) and `onRequestStreamEnd` (told once when the reply stream is
// over for any other reason). Both wires, against our handler.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { HttpMsgpackClientTransport, type FetchLike, type JSONRPCMessage, type WireKind } from 'mcp-msgpack-transport';
import { serverKinds, startTestServer, waitUntil, type TestHttpServer } from './fixtures/http-helpers.js';

const LIMIT = 20_000;

interface Harness {
  transport: HttpMsgpackClientTransport;
  client: Client;
  /** Replies to the requests this test sent itself (ids from 9000). */
  replies: JSONRPCMessage[];
  errors: Error[];
  /** Headers of every POST, in order. */
  posted: Headers[];
  /** While set, a POST of this request id waits until its signal aborts (a server that never answers). */
  hangId?: number;
}

async function connect(url: URL, wire: WireKind): Promise<Harness> {
  const harness = { replies: [], errors: [], posted: [] } as unknown as Harness;
  const trackingFetch: FetchLike = (target, init) => {
    if (init?.method === 'POST') {
      harness.posted.push(new Headers(init.headers));
      if (harness.hangId !== undefined && isRequestFor(init, harness.hangId)) {
        return new Promise((_, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true }));
      }
    }
    return fetch(target, init);
  };
  // encoding 'smallest': every body on the wire under test (else small requests to our server go as JSON, SPEC.md 9.6).
  harness.transport = new HttpMsgpackClientTransport(url, { wire, fetch: trackingFetch, encoding: 'smallest' });
  harness.client = new Client({ name: 'send-options', version: '1.0.0' });
  await harness.client.connect(harness.transport);
  const sdkOnMessage = harness.transport.onmessage!;
  harness.transport.onmessage = (message) => {
    if ('id' in message && typeof message.id === 'number' && message.id >= 9000) harness.replies.push(message);
    else sdkOnMessage(message);
  };
  const sdkOnError = harness.transport.onerror;
  harness.transport.onerror = (error) => {
    harness.errors.push(error);
    sdkOnError?.(error);
  };
  return harness;
}

/** The request to hang is told by a per-send header, `x-test-id` (the body may be MessagePack). */
function isRequestFor(init: RequestInit, id: number): boolean {
  return new Headers(init.headers).get('x-test-id') === String(id);
}

const call = (id: number, name: string, args: Record<string, unknown>): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

for (const kind of serverKinds) {
  for (const wire of ['msgpack', 'json'] as const) {
    describe(`HTTP client send options (SDK v2), ${wire} wire, ${kind}`, { timeout: LIMIT }, () => {
      let server: TestHttpServer;
      // Reply streams at once, as before held replies (SPEC.md 9.6.2): these options are about reply streams.
      before(async () => {
        server = await startTestServer(kind, { replyStreams: 'always' });
      });
      after(async () => {
        await server.close();
      });

      it('says it opens one request per message (hasPerRequestStream)', async () => {
        const { transport, client } = await connect(server.url, wire);
        assert.equal(transport.hasPerRequestStream, true);
        await client.close();
      });

      it('headers: added to that one request; the transport keeps its own session, content type and version', async () => {
        const h = await connect(server.url, wire);
        try {
          const sessionId = h.transport.sessionId;
          await h.transport.send(call(9001, 'echo', { text: 'with headers' }), {
            headers: { 'X-Custom': 'one', 'Mcp-Session-Id': 'forged', 'Content-Type': 'text/plain', 'MCP-Protocol-Version': '1999-01-01' },
          });
          await waitUntil(() => h.replies.length === 1, 'the reply');
          assert.deepEqual((h.replies[0] as { result: unknown }).result, { content: [{ type: 'text', text: 'with headers' }] });
          const sent = h.posted.at(-1)!;
          assert.equal(sent.get('x-custom'), 'one');
          assert.equal(sent.get('mcp-session-id'), sessionId);
          assert.equal(sent.get('content-type'), wire === 'msgpack' ? 'application/msgpack' : 'application/json');
          assert.equal(sent.get('mcp-protocol-version'), '2025-11-25');
          await h.transport.send(call(9002, 'echo', { text: 'without' }));
          assert.equal(h.posted.at(-1)!.get('x-custom'), null, 'only that one request');
        } finally {
          await h.client.close();
        }
      });

      it('onRequestStreamEnd: told once when the reply stream ends after its reply', async () => {
        const h = await connect(server.url, wire);
        try {
          let ended = 0;
          let repliesWhenEnded = -1;
          await h.transport.send(call(9003, 'count', { steps: 3 }), {
            onRequestStreamEnd: () => {
              ended++;
              repliesWhenEnded = h.replies.length;
            },
          });
          await waitUntil(() => ended > 0, 'the end of the reply stream');
          assert.equal(repliesWhenEnded, 1, 'the reply came first');
          await h.transport.send(call(9004, 'echo', { text: 'next' }));
          await waitUntil(() => h.replies.length === 2, 'the next reply');
          assert.equal(ended, 1);
          assert.deepEqual(h.errors, []);
        } finally {
          await h.client.close();
        }
      });

      it('requestSignal, while the reply streams: ends that stream silently; the transport goes on', async () => {
        // A server of its own, so its open streams are this client's: the GET stream, then the reply stream.
        const own = await startTestServer(kind, { replyStreams: 'always' });
        const h = await connect(own.url, wire);
        try {
          await waitUntil(() => own.handler.openStreamCount === 1, 'the GET stream to open');
          const controller = new AbortController();
          let ended = 0;
          // Slow enough that only the abort can end its stream within the wait below.
          await h.transport.send(call(9005, 'slow', { ms: 10_000 }), { requestSignal: controller.signal, onRequestStreamEnd: () => ended++ });
          await waitUntil(() => own.handler.openStreamCount === 2, 'the reply stream to open');
          controller.abort();
          await waitUntil(() => own.handler.openStreamCount === 1, 'the server to see the reply stream closed');
          await h.transport.send(call(9006, 'echo', { text: 'still here' }));
          await waitUntil(() => h.replies.some((reply) => 'id' in reply && reply.id === 9006), 'the next reply');
          assert.deepEqual(h.errors, [], 'no error reported');
          assert.equal(ended, 0, 'a deliberate abort is no stream end');
          assert.ok(!h.replies.some((reply) => 'id' in reply && reply.id === 9005), 'the aborted request got no reply');
        } finally {
          await h.client.close();
          await own.close();
        }
      });

      it('requestSignal, before any reply: send() rejects, onerror stays quiet, the transport goes on', async () => {
        const h = await connect(server.url, wire);
        try {
          const controller = new AbortController();
          h.hangId = 9007;
          const sent = h.transport.send(call(9007, 'echo', { text: 'never' }), { requestSignal: controller.signal, headers: { 'x-test-id': '9007' } });
          await waitUntil(() => h.posted.some((headers) => headers.get('x-test-id') === '9007'), 'the hanging POST');
          controller.abort();
          await assert.rejects(sent);
          await h.transport.send(call(9008, 'echo', { text: 'after' }));
          await waitUntil(() => h.replies.length === 1, 'the next reply');
          assert.deepEqual(h.errors, []);
        } finally {
          await h.client.close();
        }
      });
    });
  }
}
