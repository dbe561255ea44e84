// RedisEventStore against a real redis-server started by the test: binary-safe storage, bounded streams,
// replay, and failover between two server instances (two handlers sharing one Redis, each with its own
// store and instance id): a resumed stream is followed on another instance until it ends, and a request
// whose producer is gone ends with a JSON-RPC error. Both wires.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decoder } from '@msgpack/msgpack';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { McpHttpHandler, nativeImage } from 'mcp-msgpack-transport';
import { RedisEventStore, STREAM_LOST_ERROR_CODE } from 'mcp-msgpack-transport/redis';
import { createGatedServer, Gate } from './fixtures/gated-server.js';
import { mediaBytes } from './fixtures/native-tools.js';
import { redisMissing, startRedisFixture, type RedisFixture } from './fixtures/redis-service.js';
import { get, post, progressOf, stepsCall, take, VERSION } from './fixtures/store-requests.js';
import { streamEvents } from './fixtures/stream-events.js';

if (redisMissing) console.log(`# skipping the Redis event store tests: ${redisMissing}`);

describe('RedisEventStore', { skip: redisMissing, timeout: 60_000 }, () => {
  let redis: RedisFixture;
  before(async () => {
    redis = await startRedisFixture();
  });
  after(async () => {
    await redis?.stop();
  });

  /** Two instances of one server behind the same Redis: stateless, or sessionful. */
  async function twoInstances(options: { stateless: boolean; prefix: string }) {
    const gate = new Gate();
    const servers: McpServer[] = [];
    const stores = [
      new RedisEventStore({ client: await redis.client(), keyPrefix: options.prefix, livenessTtlMs: 600, followPollMs: 20 }),
      new RedisEventStore({ client: await redis.client(), keyPrefix: options.prefix, livenessTtlMs: 600, followPollMs: 20 }),
    ];
    const handlers = stores.map((eventStore) => new McpHttpHandler({ createServer: () => createGatedServer(gate, servers), stateless: options.stateless, eventStore }));
    return {
      gate,
      servers,
      stores,
      handlers,
      close: async () => {
        gate.open();
        await Promise.all(handlers.map((handler) => handler.close()));
        await Promise.all(stores.map((store) => store.close()));
      },
    };
  }

  it('stores messages as msgpack-v1 payloads with media as raw bytes, and replays them after an id, in order', async () => {
    const client = await redis.client();
    const store = new RedisEventStore({ client, keyPrefix: 'bin:' });
    try {
      const bytes = mediaBytes(100_000, 7);
      const prime = await store.storeEvent('s1', {} as JSONRPCMessage);
      const first = await store.storeEvent('s1', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
      const image = { jsonrpc: '2.0', id: 3, result: { content: [nativeImage(bytes, 'image/png')] } } as JSONRPCMessage;
      const last = await store.storeEvent('s1', image);
      await store.storeEvent('other', { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } });

      // In Redis: the payload is MessagePack whose media field is a bin of the very bytes (not base64, not JSON).
      const raw = (await client.withTypeMapping({ 36: Buffer }).sendCommand(['XRANGE', store.streamKey('s1'), '-', '+'])) as [Buffer, Buffer[]][];
      assert.equal(raw.length, 3);
      const fields = raw[2]![1];
      // A payload with a large bin is stored in pieces, m, m1, m2, ...: the bin a piece of its own.
      const named = (name: string) => fields[fields.findIndex((field) => field.toString() === name) + 1];
      const pieces: Buffer[] = [named('m')!];
      for (let i = 1; named(`m${i}`) && fields.some((field) => field.toString() === `m${i}`); i++) pieces.push(named(`m${i}`)!);
      assert.ok(
        pieces.some((piece) => piece.equals(bytes)),
        'the media bytes are one field of their own, as they are',
      );
      const payload = Buffer.concat(pieces);
      assert.ok(payload.length < bytes.length + 200, `payload of ${payload.length} bytes: not base64`);
      const decoded = new Decoder().decode(payload) as { result: { content: { data: unknown }[] } };
      assert.ok(decoded.result.content[0]!.data instanceof Uint8Array);
      assert.ok(Buffer.from(decoded.result.content[0]!.data as Uint8Array).equals(bytes));

      assert.equal(await store.getStreamIdForEventId(first), 's1');
      assert.equal(await store.getStreamIdForEventId('s1:not-an-entry'), undefined);
      assert.equal(await store.getStreamIdForEventId('missing:1-0'), undefined);

      const replayed: [string, JSONRPCMessage][] = [];
      const streamId = await store.replayEventsAfter(prime, { send: async (id, message) => void replayed.push([id, message]) });
      assert.equal(streamId, 's1');
      assert.deepEqual(
        replayed.map(([id]) => id),
        [first, last],
      );
      const media = (replayed[1]![1] as unknown as { result: { content: { data: unknown }[] } }).result.content[0]!.data;
      assert.ok(media instanceof Uint8Array && Buffer.from(media).equals(bytes));
    } finally {
      await store.close();
    }
  });

  it('bounds each stream (MAXLEN ~), expires it, and refuses to replay from a trimmed event', async () => {
    const client = await redis.client();
    const store = new RedisEventStore({ client, keyPrefix: 'trim:', maxStreamLength: 100, streamTtlMs: 50_000, finishedStreamTtlMs: 5_000 });
    try {
      const first = await store.storeEvent('long', {} as JSONRPCMessage);
      for (let i = 0; i < 1_000; i++) await store.storeEvent('long', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: i } });
      const length = (await client.sendCommand(['XLEN', store.streamKey('long')])) as number;
      assert.ok(length >= 100 && length <= 200, `XLEN ${length}`);
      const ttl = (await client.sendCommand(['PTTL', store.streamKey('long')])) as number;
      assert.ok(ttl > 5_000 && ttl <= 50_000, `PTTL ${ttl}`);
      await assert.rejects(store.replayEventsAfter(first, { send: async () => {} }), /no longer stored/);

      // A finished stream (its one request answered) is kept only finishedStreamTtlMs.
      store.streamOpened('done', [1]);
      await store.storeEvent('done', {} as JSONRPCMessage);
      await store.storeEvent('done', { jsonrpc: '2.0', id: 1, result: {} });
      const finished = (await client.sendCommand(['PTTL', store.streamKey('done')])) as number;
      assert.ok(finished > 0 && finished <= 5_000, `PTTL ${finished}`);
    } finally {
      await store.close();
    }
  });

  for (const wire of ['json', 'msgpack'] as const) {
    it(`${wire}: a stream resumed on another instance is followed there until its result`, async () => {
      const fleet = await twoInstances({ stateless: true, prefix: `done-${wire}:` });
      try {
        const [a, b] = fleet.handlers as [McpHttpHandler, McpHttpHandler];
        const cut = streamEvents((await post(a, wire, stepsCall(7, 3))).body!, wire);
        const seen = await take(cut, 3); // priming event, progress 1, progress 2
        assert.equal(seen[0]!.message, undefined);
        assert.deepEqual(seen.slice(1).map(progressOf), [1, 2]);

        const resumed = streamEvents((await get(b, wire, seen[1]!.id)).body!, wire);
        const replayed = await take(resumed, 1);
        fleet.gate.open(); // instance A replies now, after B has started following
        const rest = [...replayed, ...(await take(resumed, 10))];
        assert.deepEqual(
          rest.map((event) => progressOf(event) ?? event.message?.id),
          [2, 3, 7],
        );
        assert.equal(rest[0]!.id, seen[2]!.id, 'the first event after the resumed one, with its own id');
        assert.deepEqual(rest[2]!.message!.result, { content: [{ type: 'text', text: 'did 3 steps' }] });
        assert.equal(new Set(rest.map((event) => event.id)).size, 3, 'every event once, each with an id');
      } finally {
        await fleet.close();
      }
    });

    it(`${wire}: a request whose producer died ends with a JSON-RPC error on the instance it resumed on`, async () => {
      const fleet = await twoInstances({ stateless: true, prefix: `lost-${wire}:` });
      try {
        const [a, b] = fleet.handlers as [McpHttpHandler, McpHttpHandler];
        const cut = streamEvents((await post(a, wire, stepsCall(8, 4))).body!, wire);
        const seen = await take(cut, 5); // priming, progress 1-4
        // Instance A "dies": its liveness key is gone and it never replies (the gate stays shut).
        await fleet.stores[0]!.close();
        const rest = await take(streamEvents((await get(b, wire, seen[2]!.id)).body!, wire), 10);
        assert.deepEqual(
          rest.map((event) => progressOf(event) ?? event.message?.id),
          [3, 4, 8],
        );
        assert.deepEqual(
          rest.slice(0, 2).map((event) => event.id),
          seen.slice(3).map((event) => event.id),
        );
        const error = rest[2]!.message!.error!;
        assert.equal(error.code, STREAM_LOST_ERROR_CODE);
        assert.match(error.message, /stopped before replying/);
        assert.equal((error.data as { reason: string }).reason, 'producer-lost');
      } finally {
        await fleet.close();
      }
    });

    it(`${wire}: a request abandoned by its (living) instance ends with a JSON-RPC error`, async () => {
      const fleet = await twoInstances({ stateless: true, prefix: `gone-${wire}:` });
      try {
        const [a, b] = fleet.handlers as [McpHttpHandler, McpHttpHandler];
        const response = await post(a, wire, stepsCall(9, 2));
        const cut = streamEvents(response.body!, wire);
        const seen = await take(cut, 2);
        const resumed = streamEvents((await get(b, wire, seen[1]!.id)).body!, wire);
        assert.deepEqual((await take(resumed, 1)).map(progressOf), [2]);
        // The client's connection to A drops: stateless A closes the request's server, which will never answer.
        await cut.return(undefined);
        await response.body!.cancel();
        const rest = await take(resumed, 10);
        assert.equal(rest.length, 1);
        assert.equal(rest[0]!.message!.id, 9);
        assert.equal((rest[0]!.message!.error!.data as { reason: string }).reason, 'stream-abandoned');
      } finally {
        await fleet.close();
      }
    });

    it(`${wire}: a session's GET stream resumes on an instance without the session, and ends when its producer dies`, async () => {
      const fleet = await twoInstances({ stateless: false, prefix: `get-${wire}:` });
      try {
        const [a, b] = fleet.handlers as [McpHttpHandler, McpHttpHandler];
        const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 't', version: '1' } } };
        const opened = await post(a, 'json', init);
        const sessionId = opened.headers.get('mcp-session-id')!;
        await opened.body?.cancel();
        await post(a, 'json', { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId);
        const standalone = streamEvents((await get(a, wire, undefined, sessionId)).body!, wire);
        for (let n = 1; n <= 3; n++) await fleet.servers[0]!.server.sendLoggingMessage({ level: 'info', data: `note ${n}` });
        const seen = await take(standalone, 3);
        assert.deepEqual(
          seen.map((event) => (event.message?.params as { data: string } | undefined)?.data),
          ['note 1', 'note 2', 'note 3'],
        );

        const resumed = streamEvents((await get(b, wire, seen[0]!.id, sessionId)).body!, wire);
        const replayed = await take(resumed, 2);
        assert.deepEqual(
          replayed.map((event) => event.id),
          [seen[1]!.id, seen[2]!.id],
        );
        await fleet.stores[0]!.close(); // the session's instance is gone: nothing more will come
        assert.deepEqual(await take(resumed, 10), []);
      } finally {
        await fleet.close();
      }
    });
  }

  it('answers a resume from an unknown or malformed event id with 400, and serves no stream', async () => {
    const fleet = await twoInstances({ stateless: true, prefix: 'bad:' });
    try {
      for (const id of ['nonsense', 'some-stream:1-0', `x:${'9'.repeat(600)}-0`]) {
        const response = await get(fleet.handlers[1]!, 'json', id);
        assert.equal(response.status, 400, id);
        assert.match(await response.text(), /Invalid event ID/);
      }
    } finally {
      await fleet.close();
    }
  });
});
