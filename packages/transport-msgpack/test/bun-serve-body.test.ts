// McpHttpHandler.handleBun, the write path listenBun gives Bun.serve: a reply (in memory, or a reply stream)
// goes out as a pull stream of slices, and each lent piece goes back to its pool on the pull after its last slice. Checked
// here with a reader that keeps Bun.serve's contract (done with a chunk before it pulls the next) and, the
// moment each chunk arrives, overwrites the buffer the pool would lend next: a piece given back while its
// bytes were still unread arrives changed. Runs on both runtimes (the reader stands in for Bun.serve).
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HttpMsgpackClientTransport, McpHttpHandler, callToolNative } from 'mcp-msgpack-transport';
import { withTimeout } from './fixtures/native-helpers.js';
import { createNativeServer, mediaBytes, pooledBuffersSeen, testMediaPool } from './fixtures/native-tools.js';

const MiB = 1024 * 1024;
const CALLS = 6;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  pooledBuffersSeen.clear();
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => {});
});

/** Reads `body` as Bun.serve does, scribbling over the pool's next `size`-byte buffer before taking each chunk. */
function readLikeBunServe(body: ReadableStream<Uint8Array>, size: number, chunks: number[]): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        chunks.push(value.byteLength);
        const next = testMediaPool.acquire(size);
        next.fill(0xee);
        testMediaPool.release(next);
        controller.enqueue(Uint8Array.from(value)); // taken: copied before the next pull
      },
    },
    { highWaterMark: 0 },
  );
}

async function connectThroughHandleBun(size: number, chunks: number[], enableJsonResponse: boolean): Promise<Client> {
  const handler = new McpHttpHandler({ createServer: createNativeServer, nativeBytes: true, enableJsonResponse });
  cleanups.push(() => handler.close());
  const fetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const response = await handler.handleBun(new Request(url, init));
    if (!response.body) return response;
    return new Response(readLikeBunServe(response.body, size, chunks), { status: response.status, headers: response.headers });
  };
  const client = new Client({ name: 'bun-serve-body-test', version: '1.0.0' });
  cleanups.push(() => client.close());
  await withTimeout(client.connect(new HttpMsgpackClientTransport(new URL('http://127.0.0.1/mcp'), { nativeBytes: true, fetch })), 10_000, 'connect');
  return client;
}

describe('handleBun: replies for Bun.serve', { timeout: 60_000 }, () => {
  for (const enableJsonResponse of [true, false]) {
    it(`${enableJsonResponse ? 'single replies' : 'streamed replies'}: large bytes go in slices, and pooled bytes back only once read`, async () => {
      const size = 3 * MiB + 5; // a last slice shorter than the others
      const chunks: number[] = [];
      const client = await connectThroughHandleBun(size, chunks, enableJsonResponse);
      for (let seed = 1; seed <= CALLS; seed++) {
        chunks.length = 0;
        const result = await callToolNative(client, { name: 'pooled-image', arguments: { bytes: size, seed } });
        const data = (result.content as { data?: unknown }[])[0]?.data as Uint8Array;
        assert.ok(Buffer.from(data.buffer, data.byteOffset, data.length).equals(mediaBytes(size, seed)), `image ${seed} arrived changed`);
        assert.ok(chunks.length >= 4 && Math.max(...chunks) <= MiB, `sent in slices of at most 1 MiB: ${chunks.join(', ')}`);
      }
      // One call at a time, each buffer back once read: the same buffer every call.
      assert.equal(pooledBuffersSeen.size, 1, `${CALLS} calls used ${pooledBuffersSeen.size} distinct buffers`);
    });
  }
});
