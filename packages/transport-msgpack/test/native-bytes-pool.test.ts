// NativeBytesPool and lending: buffers come back once written (stdio, node:http) or encoded as base64,
// and reuse never changes bytes still on their way (many calls in flight, each checking its own image).
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { fileURLToPath } from 'node:url';
import { HttpMsgpackClientTransport, McpHttpHandler, NativeBytesPool, StdioMsgpackClientTransport, callToolNative, listenBun, listenNode } from 'mcp-msgpack-transport';
import { clientTransport, createMediaClient, inProcessPair, withTimeout } from './fixtures/native-helpers.js';
import { createNativeServer, largeObject, mediaBytes, pooledBuffersSeen } from './fixtures/native-tools.js';

const MiB = 1024 * 1024;
const CHILD_SERVER = fileURLToPath(new URL('./fixtures/native-server.js', import.meta.url));
const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  pooledBuffersSeen.clear();
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => {});
});

describe('NativeBytesPool', () => {
  it('lends buffers of the exact size, and reuses one given back', () => {
    const pool = new NativeBytesPool();
    const first = pool.acquire(MiB);
    assert.equal(first.length, MiB);
    assert.equal(pool.retainedBytes, 0);
    pool.release(first);
    assert.equal(pool.retainedBytes, MiB);
    const second = pool.acquire(MiB - 10);
    assert.equal(second.length, MiB - 10);
    assert.equal(second.buffer, first.buffer, 'the free buffer was reused');
    assert.equal(pool.retainedBytes, 0);
  });

  it('rounds capacities up in quarter steps, and gives back once however often released', () => {
    const pool = new NativeBytesPool();
    const bytes = pool.acquire(5 * MiB + 1);
    pool.release(bytes);
    pool.release(bytes);
    assert.equal(pool.retainedBytes, 6 * MiB);
  });

  it('keeps at most maxRetainedBytes, and does not pool small buffers', () => {
    const pool = new NativeBytesPool({ maxRetainedBytes: 2 * MiB, minPooledBytes: 1024 });
    const lent = [pool.acquire(MiB), pool.acquire(MiB), pool.acquire(MiB)];
    for (const bytes of lent) pool.release(bytes);
    assert.equal(pool.retainedBytes, 2 * MiB);
    pool.release(pool.acquire(100));
    assert.equal(pool.retainedBytes, 2 * MiB);
  });

  it('drops its free buffers once unused for idleReleaseMs; 0 keeps them', async () => {
    const idle = new NativeBytesPool({ idleReleaseMs: 20 });
    const kept = new NativeBytesPool({ idleReleaseMs: 0 });
    for (const pool of [idle, kept]) pool.release(pool.acquire(MiB));
    assert.equal(idle.retainedBytes, MiB);
    const deadline = Date.now() + 10_000;
    while (idle.retainedBytes > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(idle.retainedBytes, 0, 'the idle pool let go of its buffer');
    assert.equal(kept.retainedBytes, MiB);
    // Released means gone, not broken: the next acquire gets a fresh buffer and pooling goes on.
    idle.release(idle.acquire(MiB));
    assert.equal(idle.retainedBytes, MiB);
  });
});

const CALLS = 12;
const IN_FLIGHT = 4;
const SIZE = 4 * MiB;

/** Runs call(0 .. CALLS-1), IN_FLIGHT at a time. */
async function inFlight(call: (seed: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let seed = next++; seed < CALLS; seed = next++) await call(seed);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

/**
 * Pooled images, each with its own seed, must arrive intact. They are larger than socket and pipe buffers,
 * so writes stay pending: a buffer given back too early is refilled by the next call while still being
 * sent, and an image arrives changed.
 */
function callMany(client: Client): Promise<void> {
  return inFlight(async (seed) => {
    const result = await callToolNative(client, { name: 'pooled-image', arguments: { bytes: SIZE, seed: seed + 1 } });
    const data = (result.content as { data?: unknown }[])[0]?.data as Uint8Array;
    assert.ok(Buffer.from(data.buffer, data.byteOffset, data.length).equals(mediaBytes(SIZE, seed + 1)), `image ${seed + 1} arrived changed`);
  });
}

/** The same for large object results, whose encoder buffers are reused once written. */
function callManyObjects(client: Client): Promise<void> {
  return inFlight(async (seed) => {
    const result = await client.callTool({ name: 'large-object', arguments: { seed } });
    assert.deepEqual(result.structuredContent, largeObject(seed), `object ${seed} arrived changed`);
  });
}

/**
 * The JSON wire: pooled images as base64 text (several MB a reply, so writes stay pending) and large
 * objects. Large JSON replies over node:http are encoded into reused buffers too (node-adapter.ts): a
 * buffer given back before the socket took all of it would be refilled by another reply and arrive changed.
 */
function callManyAsJson(client: Client): Promise<void> {
  return inFlight(async (seed) => {
    const result = await client.callTool({ name: 'pooled-image', arguments: { bytes: SIZE, seed: seed + 1 } });
    const data = (result.content as { data?: unknown }[])[0]?.data;
    assert.equal(typeof data, 'string', 'the JSON wire carries base64');
    assert.ok(Buffer.from(data as string, 'base64').equals(mediaBytes(SIZE, seed + 1)), `image ${seed + 1} arrived changed`);
    const object = await client.callTool({ name: 'large-object', arguments: { seed } });
    assert.deepEqual(object.structuredContent, largeObject(seed), `object ${seed} arrived changed`);
  });
}

/** Buffers given back were lent again: far fewer distinct buffers than calls. */
function assertReused(): void {
  assert.ok(pooledBuffersSeen.size <= 2 * IN_FLIGHT, `${CALLS} calls used ${pooledBuffersSeen.size} distinct buffers`);
}

async function connect(transport: Transport): Promise<Client> {
  const { client } = createMediaClient(1000);
  cleanups.push(() => client.close());
  await withTimeout(client.connect(transport), 10_000, 'connect');
  return client;
}

describe('lent media buffers through the transports', { timeout: 120_000 }, () => {
  for (const wire of ['msgpack', 'json'] as const) {
    it(`stdio (child server, real pipe), ${wire} wire: every image intact, and the buffers come back`, async () => {
      const client = await connect(new StdioMsgpackClientTransport({ command: process.execPath, args: [CHILD_SERVER], wire, nativeBytes: true }));
      await withTimeout(callMany(client), 60_000, `${CALLS} calls`);
      await withTimeout(callManyObjects(client), 60_000, `${CALLS} object calls`);
      const seen = await client.callTool({ name: 'pooled-buffers-seen', arguments: {} });
      const distinct = Number((seen.content as { text: string }[])[0]!.text);
      // Node's pipe is an OS handle, Bun's stdout a descriptor's fs.WriteStream: either way a write's callback
      // comes once the kernel has the bytes, so the buffers come back and are reused.
      assert.ok(distinct <= 2 * IN_FLIGHT, `${CALLS} calls used ${distinct} distinct buffers`);
    });
  }

  it('in-process streams (PassThrough): nothing is given back, so results held by the reader stay intact', async () => {
    // The reader of an in-process stream gets the very buffers written, and decodes a one-chunk frame in
    // place: the small image inside a large message is a view of the encoder's buffer. Reusing that buffer
    // for the next large message would change a result the application still holds, so every result is
    // kept to the end and checked then.
    const pair = inProcessPair(createNativeServer(), { nativeBytes: true });
    const client = await connect(clientTransport(pair, 'msgpack', true));
    const held: { seed: number; data: Uint8Array }[] = [];
    for (let seed = 1; seed <= 6; seed++) {
      const result = await callToolNative(client, { name: 'image-in-long-text', arguments: { seed } });
      held.push({ seed, data: (result.content as { data?: unknown }[])[1]?.data as Uint8Array });
    }
    for (const { seed, data } of held) {
      assert.ok(Buffer.from(data.buffer, data.byteOffset, data.length).equals(mediaBytes(10_000, seed)), `image ${seed} changed after it arrived`);
    }
  });

  const servers = isBun ? (['node:http', 'Bun.serve'] as const) : (['node:http'] as const);
  for (const kind of servers) {
    for (const enableJsonResponse of [true, false]) {
      it(`HTTP on ${kind}, ${enableJsonResponse ? 'single replies' : 'streamed replies'}: every image intact`, async () => {
        const handler = new McpHttpHandler({ createServer: createNativeServer, nativeBytes: true, enableJsonResponse });
        const running = kind === 'Bun.serve' ? await listenBun(handler) : await listenNode(handler);
        cleanups.push(() => running.close());
        const client = await connect(new HttpMsgpackClientTransport(running.url, { nativeBytes: true }));
        await withTimeout(callMany(client), 60_000, `${CALLS} calls`);
        await withTimeout(callManyObjects(client), 60_000, `${CALLS} object calls`);
        // Reused where the bytes are known to be copied out: node:http on Node (an OS socket), and Bun.serve
        // (which takes a reply chunk by chunk, bun-adapter.ts); on Bun's node:http they are garbage-collected.
        if (isBun ? kind === 'Bun.serve' : true) assertReused();
      });
    }

    for (const enableJsonResponse of [true, false]) {
      it(`HTTP on ${kind}, JSON wire, ${enableJsonResponse ? 'single replies' : 'streamed replies (SSE)'}: every large reply intact`, async () => {
        const handler = new McpHttpHandler({ createServer: createNativeServer, nativeBytes: true, enableJsonResponse });
        const running = kind === 'Bun.serve' ? await listenBun(handler) : await listenNode(handler);
        cleanups.push(() => running.close());
        const client = await connect(new HttpMsgpackClientTransport(running.url, { wire: 'json' }));
        await withTimeout(callManyAsJson(client), 60_000, `${CALLS} JSON calls`);
      });
    }
  }
});
