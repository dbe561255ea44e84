// jsonrpc and id first on the MessagePack wire (SPEC.md 3.2.6): the SDKs' servers build responses as
// {result, jsonrpc, id}; with the id last, a receiver that refuses such a response further on (over its decode
// budget, say) could not tell which call it answered, and the call waited for its timeout.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { HttpMsgpackClientTransport, McpHttpHandler, listenBun, listenNode } from 'mcp-msgpack-transport';
import { CanonicalEncoder, MsgpackDecoder } from 'mcp-msgpack-transport/wire';
import { MsgpackMessageCodec } from '../src/codec/msgpack-codec.js';
import { DEFAULT_DECODE_BUDGET } from '../src/wire/constants.js';

const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';
const kinds = isBun ? (['node:http', 'Bun.serve'] as const) : (['node:http'] as const);
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => {});
});

/** 100,000 [x, y] pairs of small integers: about 400 KB of MessagePack, over the default word allowance. */
const PAIRS = Array.from({ length: 100_000 }, (_, i) => [i % 100, i % 7]);
const FEW_PAIRS = [
  [1, 2],
  [3, 4],
];

describe('jsonrpc and id first on the MessagePack wire (SPEC.md 3.2.6)', () => {
  it("puts them first in a response built as the SDK's server builds it, so a refusing receiver still reads the id", () => {
    const codec = new MsgpackMessageCodec();
    const sdkOrder = { result: { structuredContent: { pairs: PAIRS } }, jsonrpc: '2.0', id: 42 } as never;
    const bytes = codec.encodeBody(sdkOrder);
    const unbounded = new MsgpackDecoder({ decodeBudget: { ...DEFAULT_DECODE_BUDGET, wordBase: Number.POSITIVE_INFINITY } });
    assert.deepEqual(Object.keys(unbounded.decode(bytes).value as object), ['jsonrpc', 'id', 'result']);
    assert.throws(
      () => codec.decodeMessage(bytes),
      (error: { code?: string; clues?: { id?: unknown; hasResultOrError?: boolean } }) => error.code === 'over-budget' && error.clues?.id === 42 && error.clues.hasResultOrError === true,
    );
    // Already in order (as requests, notifications and this package's errors are built): the same bytes.
    const request = { jsonrpc: '2.0', id: 1, method: 'ping' } as never;
    assert.deepEqual(codec.encodeBody(request), new CanonicalEncoder().encode(request));
    // In a frame and in a batch too.
    const frame = codec.encodeFrame(sdkOrder);
    assert.deepEqual(Object.keys(unbounded.decode(frame.subarray(4)).value as object), ['jsonrpc', 'id', 'result']);
    const batch = unbounded.decode(codec.encodeBody([sdkOrder, request] as never)).value as object[];
    assert.deepEqual(Object.keys(batch[0]!), ['jsonrpc', 'id', 'result']);
  });
});

function pairsServer(): McpServer {
  const server = new McpServer({ name: 'id-first-server', version: '1.0.0' });
  server.registerTool('pairs', { inputSchema: { count: z.number().int() } }, async ({ count }) => ({
    content: [{ type: 'text', text: `${count} pairs` }],
    structuredContent: { pairs: count === PAIRS.length ? PAIRS : FEW_PAIRS },
  }));
  return server;
}

for (const kind of kinds) {
  describe(`a response the client refuses fails its call at once (${kind})`, { timeout: 60_000 }, () => {
    it('over the decode budget on a MessagePack reply stream: the call fails with over-budget, not by its timeout', async () => {
      const handler = new McpHttpHandler({ createServer: pairsServer, encoding: 'smallest' });
      const running = kind === 'Bun.serve' ? await listenBun(handler) : await listenNode(handler);
      cleanups.push(() => running.close());
      const client = new Client({ name: 'id-first-client', version: '1.0.0' });
      cleanups.push(() => client.close());
      await client.connect(new HttpMsgpackClientTransport(running.url, { encoding: 'smallest' }));
      const few = await client.callTool({ name: 'pairs', arguments: { count: 2 } });
      assert.deepEqual(few.structuredContent, { pairs: FEW_PAIRS });
      const started = Date.now();
      await assert.rejects(client.callTool({ name: 'pairs', arguments: { count: PAIRS.length } }, undefined, { timeout: 20_000 }), /over-budget|decode budget/);
      assert.ok(Date.now() - started < 15_000, `the call failed after ${Date.now() - started} ms, by its timeout`);
      // The connection goes on.
      assert.deepEqual((await client.callTool({ name: 'pairs', arguments: { count: 2 } })).structuredContent, { pairs: FEW_PAIRS });
    });
  });
}
