// RedisEventStore when Redis fails, against a real redis-server the test starts, SIGTERMs and restarts on the
// same port, and SIGSTOPs: the store handles the client's errors itself (no listener of the application's:
// an unhandled 'error' event would end this test process), no store operation waits past its bound, calls
// are still answered (live, not resumable) while Redis is away, a resume of a stream that lost events gets
// 410 and one made while Redis is away 503, and readiness follows Redis within a second. Then the byte
// budgets: a result over maxEventBytes is sent but not stored (a resume gets an error in its place), a stream
// over maxStreamBytes loses its oldest entries, a store over maxStoreBytes stores no more.
// Server-side failures on the request path are 5xx with a JSON-RPC internal error, never -32700 (no Redis needed).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decoder } from '@msgpack/msgpack';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { McpHttpHandler } from 'mcp-msgpack-transport';
import { EventStoreUnavailableError, reconnectWithBackoff, RedisEventStore, StreamNotResumableError, type SharedEventStore } from 'mcp-msgpack-transport/redis';
import { createGatedServer, Gate } from './fixtures/gated-server.js';
import { createNativeServer } from './fixtures/native-tools.js';
import { redisMissing, startRedisFixture, type RedisFixture } from './fixtures/redis-service.js';
import { get, post, progressOf, stepsCall, take } from './fixtures/store-requests.js';
import { streamEvents } from './fixtures/stream-events.js';

if (redisMissing) console.log(`# skipping the Redis store fault tests: ${redisMissing}`);

/** The store's operation bound in these tests, and the slack a timer gets on a loaded machine. */
const BOUND_MS = 300;
const SLACK_MS = 700;

async function timed<T>(work: Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const start = performance.now();
  try {
    const value = await work;
    return { ms: performance.now() - start, value };
  } catch (error) {
    return { ms: performance.now() - start, error };
  }
}

async function until(condition: () => Promise<boolean>, withinMs: number): Promise<number> {
  const start = performance.now();
  while (performance.now() - start < withinMs) {
    if (await condition()) return performance.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`not within ${withinMs} ms`);
}

/** A refusal's JSON-RPC body, in the wire it came in. */
async function bodyOf(response: Response): Promise<unknown> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  return response.headers.get('content-type')?.includes('msgpack') ? new Decoder().decode(bytes) : JSON.parse(Buffer.from(bytes).toString());
}

const note = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `note ${n}` } });

describe('RedisEventStore when Redis fails', { skip: redisMissing, timeout: 90_000 }, () => {
  let redis: RedisFixture;
  before(async () => {
    redis = await startRedisFixture();
  });
  after(async () => {
    redis?.resume();
    await redis?.stop();
  });

  async function storeOf(prefix: string, options: Partial<ConstructorParameters<typeof RedisEventStore>[0]> = {}) {
    const errors: Error[] = [];
    // No 'error' listener of the test's own: the store must add one.
    const client = await redis.client({ socket: { reconnectStrategy: reconnectWithBackoff } });
    const store = new RedisEventStore({ client, keyPrefix: prefix, operationTimeoutMs: BOUND_MS, livenessTtlMs: 3_000, onerror: (error) => errors.push(error), ...options });
    return { store, errors };
  }

  it('Redis SIGTERMed and restarted: no crash, operations fail fast while it is away, readiness and storing come back within 2 s', async () => {
    const { store, errors } = await storeOf('restart:');
    try {
      await store.storeEvent('a', note(1));
      assert.equal(await store.ready(), true);
      await redis.kill();
      const stored = await timed(store.storeEvent('b', note(2)));
      assert.ok(stored.error instanceof EventStoreUnavailableError, String(stored.error));
      assert.ok(stored.ms < BOUND_MS + SLACK_MS, `storeEvent failed after ${stored.ms} ms`);
      const ready = await timed(store.ready());
      assert.equal(ready.value, false);
      assert.ok(ready.ms < 1_000, `ready() answered after ${ready.ms} ms`);
      const resumed = await timed(store.replayEventsAfter('a:1-0', { send: async () => {} }));
      assert.ok(resumed.error instanceof EventStoreUnavailableError && resumed.ms < BOUND_MS + SLACK_MS);

      await redis.restart();
      const back = await until(() => store.ready(), 5_000);
      assert.ok(back < 2_000 + SLACK_MS, `ready again ${back} ms after Redis restarted`);
      assert.match(await store.storeEvent('c', note(3)), /^c:\d+-\d+$/);
      assert.ok(errors.length > 0, "the client's errors reached onerror");
    } finally {
      await store.close();
    }
  });

  it('Redis SIGSTOPped: an operation fails after operationTimeoutMs, the next ones at once, and all is well after SIGCONT', async () => {
    const { store } = await storeOf('pause:');
    try {
      await store.storeEvent('a', note(1));
      redis.pause();
      const first = await timed(store.storeEvent('a2', note(2)));
      assert.ok(first.error instanceof EventStoreUnavailableError, String(first.error));
      assert.ok(first.ms >= BOUND_MS - 20 && first.ms < BOUND_MS + SLACK_MS, `first failure after ${first.ms} ms`);
      const next = await timed(store.storeEvent('a3', note(3)));
      assert.ok(next.error instanceof EventStoreUnavailableError && next.ms < 100, `then after ${next.ms} ms`);
      const ready = await timed(store.ready(200));
      assert.equal(ready.value, false);
      assert.ok(ready.ms < 1_000);
      redis.resume();
      const back = await until(() => store.ready(), 5_000);
      assert.ok(back < 2_000, `ready ${back} ms after SIGCONT`);
      assert.match(await store.storeEvent('a4', note(4)), /^a4:/);
    } finally {
      redis.resume();
      await store.close();
    }
  });

  for (const wire of ['json', 'msgpack'] as const) {
    it(`${wire}: events produced while Redis is stopped go out live; the stream is then not resumable (410), and a resume while Redis is away gets 503`, async () => {
      const gate = new Gate();
      const { store } = await storeOf(`lost-${wire}:`);
      const handler = new McpHttpHandler({ createServer: () => createGatedServer(gate), stateless: true, eventStore: store });
      try {
        const events = streamEvents((await post(handler, wire, stepsCall(5, 2))).body!, wire);
        const seen = await take(events, 3); // priming, progress 1, progress 2: stored
        assert.ok(seen.every((event) => event.id !== undefined));
        redis.pause();
        gate.open(); // the result is produced while Redis answers nothing
        const rest = await timed(take(events, 10));
        assert.equal(rest.value!.length, 1);
        assert.deepEqual(rest.value![0]!.message!.result, { content: [{ type: 'text', text: 'did 2 steps' }] });
        assert.equal(rest.value![0]!.id, undefined, 'sent live, without an id: it is not stored');
        assert.ok(rest.ms < BOUND_MS + SLACK_MS, `the result came ${rest.ms} ms after it was produced`);

        const whileAway = await timed(get(handler, wire, seen[1]!.id));
        assert.equal(whileAway.value!.status, 503);
        assert.ok(whileAway.ms < BOUND_MS + SLACK_MS);
        const refusal = (await bodyOf(whileAway.value!)) as { error: { code: number; data: { reason: string } } };
        assert.equal(refusal.error.code, -32603);
        assert.equal(refusal.error.data.reason, 'event-store-unavailable');

        // A call made while Redis is away is answered all the same (not resumable: no priming event).
        const during = await take(streamEvents((await post(handler, wire, stepsCall(6, 1))).body!, wire), 10);
        assert.deepEqual(
          during.map((event) => progressOf(event) ?? event.message?.id),
          [1, 6],
        );
        assert.ok(during.every((event) => event.id === undefined));

        redis.resume();
        // Once Redis is back, the store marks the stream: a resume from before the loss is refused, not gapped.
        await until(async () => (await get(handler, wire, seen[1]!.id)).status === 410, 5_000);
        const gone = await get(handler, wire, seen[1]!.id);
        const body = (await bodyOf(gone)) as { error: { data: { reason: string } } };
        assert.equal(body.error.data.reason, 'stream-not-resumable');
      } finally {
        redis.resume();
        gate.open();
        await handler.close();
        await store.close();
      }
    });
  }

  it('a follower on another instance ends the request with data.reason "events-lost" once the producer could not store its result', async () => {
    const gate = new Gate();
    const a = await storeOf('follow-lost:');
    const b = await storeOf('follow-lost:', { followPollMs: 20 });
    const handlers = [a, b].map(({ store }) => new McpHttpHandler({ createServer: () => createGatedServer(gate), stateless: true, eventStore: store }));
    try {
      const events = streamEvents((await post(handlers[0]!, 'json', stepsCall(8, 1))).body!, 'json');
      const seen = await take(events, 2);
      const followed = streamEvents((await get(handlers[1]!, 'json', seen[0]!.id)).body!, 'json');
      assert.deepEqual((await take(followed, 1)).map(progressOf), [1]);
      // The producer loses an event of the stream (one over maxEventBytes that is not a result): the store marks it.
      const streamId = seen[0]!.id!.slice(0, seen[0]!.id!.lastIndexOf(':'));
      const huge: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x'.repeat(2 * 1024 * 1024) } };
      await assert.rejects(a.store.storeEvent(streamId, huge), StreamNotResumableError);
      const last = await take(followed, 10);
      assert.equal(last.length, 1);
      assert.equal(last[0]!.message!.id, 8);
      assert.equal((last[0]!.message!.error!.data as { reason: string }).reason, 'events-lost');
    } finally {
      gate.open();
      await Promise.all(handlers.map((handler) => handler.close()));
      await Promise.all([a.store.close(), b.store.close()]);
    }
  });

  it('a result over maxEventBytes is sent in full but not stored: a resume gets a JSON-RPC error in its place', async () => {
    const { store } = await storeOf('large:', { maxEventBytes: 64 * 1024 });
    const handler = new McpHttpHandler({ createServer: createNativeServer, stateless: true, eventStore: store, nativeBytes: true });
    try {
      const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'image', arguments: { bytes: 200_000, seed: 1 } } };
      const events = await take(streamEvents((await post(handler, 'msgpack', call)).body!, 'msgpack'), 10);
      const result = events.at(-1)!;
      const media = (result.message!.result as { content: { data?: unknown }[] }).content[1]!.data;
      // Stateless: native bytes are not negotiated, so the media come as base64.
      assert.equal(typeof media === 'string' ? Buffer.from(media, 'base64').byteLength : (media as Uint8Array).byteLength, 200_000, 'the live result has the media');
      assert.ok(store.storedBytes < 4_096, `${store.storedBytes} bytes stored`);
      const replay = await take(streamEvents((await get(handler, 'msgpack', events[0]!.id)).body!, 'msgpack'), 10);
      assert.equal(replay.length, 1);
      assert.equal(replay[0]!.id, result.id);
      const error = replay[0]!.message!.error!;
      assert.equal((error.data as { reason: string }).reason, 'event-too-large');
      assert.match(error.message, /maxEventBytes/);
    } finally {
      await handler.close();
      await store.close();
    }
  });

  it('maxStreamBytes trims a stream from its oldest entries (a resume from them gets 410); past maxStoreBytes nothing more is stored', async () => {
    const { store } = await storeOf('budget:', { maxEventBytes: 20_000, maxStreamBytes: 50_000, maxStoreBytes: 95_000 });
    const big = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `${n}`.padEnd(10_000, '.') } });
    try {
      const first = await store.storeEvent('s', big(0));
      for (let n = 1; n < 10; n++) await store.storeEvent('s', big(n));
      const bytes = store.storedBytes;
      assert.ok(bytes <= 50_000 && bytes > 30_000, `stream holds ${bytes} bytes`);
      await assert.rejects(store.replayEventsAfter(first, { send: async () => {} }), (error: unknown) => error instanceof StreamNotResumableError && error.reason === 'event-not-stored');
      for (let n = 0; n < 6; n++) await store.storeEvent('t', big(n));
      await store.storeEvent('u', big(0));
      await assert.rejects(store.storeEvent('u', big(1)), StreamNotResumableError);
      await assert.rejects(store.storeEvent('u', big(2)), StreamNotResumableError, 'a stream that lost an event stores no more');
      assert.ok(store.storedBytes <= 95_000, `store holds ${store.storedBytes} bytes`);
    } finally {
      await store.close();
    }
  });
});

describe('server-side failures on the request path', () => {
  /** A store that fails as an unreachable one would, or with an error of its own. */
  function failingStore(error: Error): SharedEventStore {
    return {
      storeEvent: async () => {
        throw error;
      },
      replayEventsAfter: async () => {
        throw error;
      },
      getStreamIdForEventId: async () => {
        throw error;
      },
      streamOpened: () => {
        throw error;
      },
    };
  }

  for (const wire of ['json', 'msgpack'] as const) {
    it(`${wire}: a store that throws while a POST is admitted gives 500 with -32603 and the reason, not -32700`, async () => {
      const handler = new McpHttpHandler({ createServer: () => createGatedServer(new Gate()), stateless: true, eventStore: failingStore(new Error('disk on fire')) });
      try {
        const response = await post(handler, wire, stepsCall(1, 1));
        assert.equal(response.status, 500);
        const body = (await bodyOf(response)) as { error: { code: number; message: string; data: { reason: string; detail: string } } };
        assert.equal(body.error.code, -32603);
        assert.equal(body.error.data.detail, 'disk on fire');
      } finally {
        await handler.close();
      }
    });
  }

  it('a resume whose store is unavailable gets 503 with a Retry-After, one it cannot serve without a gap 410', async () => {
    for (const [error, status] of [
      [new EventStoreUnavailableError('Redis is not connected'), 503],
      [new StreamNotResumableError('lost events', 'stream-not-resumable'), 410],
      [new Error('bug'), 500],
    ] as const) {
      const handler = new McpHttpHandler({ createServer: () => createGatedServer(new Gate()), stateless: true, eventStore: failingStore(error) });
      try {
        const response = await get(handler, 'json', 's:1-0');
        assert.equal(response.status, status, error.message);
        if (status === 503) assert.equal(response.headers.get('retry-after'), '1');
        await response.body?.cancel();
      } finally {
        await handler.close();
      }
    }
  });
});
