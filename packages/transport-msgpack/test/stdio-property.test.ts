// Property (fast-check): random JSON-RPC messages written to the stdio server transport's input as one byte
// stream, cut into random chunks, reach onmessage all, in order, equal to what JSON would carry, on both wires.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { StdioMsgpackServerTransport } from 'mcp-msgpack-transport';
import { frameOf } from './fixtures/stdio-bytes.js';
import { waitUntil } from './fixtures/stdio-helpers.js';

const key = fc.string({ maxLength: 8 }).filter((k) => k !== '__proto__' && k !== '_meta');
const params = fc.dictionary(key, fc.jsonValue({ maxDepth: 4 }), { maxKeys: 6 });
const id = fc.oneof(fc.string({ maxLength: 12 }), fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }));
const method = fc.string({ minLength: 1, maxLength: 20 });

const message: fc.Arbitrary<JSONRPCMessage> = fc.oneof(
  fc.record({ jsonrpc: fc.constant('2.0' as const), id, method, params }),
  fc.record({ jsonrpc: fc.constant('2.0' as const), method, params }, { requiredKeys: ['jsonrpc', 'method'] }),
  fc.record({ jsonrpc: fc.constant('2.0' as const), id, result: params }),
  fc.record({ jsonrpc: fc.constant('2.0' as const), id, error: fc.record({ code: fc.integer({ min: -32768, max: 32767 }), message: fc.string() }) }),
) as fc.Arbitrary<JSONRPCMessage>;

/** Cuts `bytes` at the given fractions (sorted, deduplicated), giving chunks that cover it exactly. */
function cut(bytes: Buffer, fractions: number[]): Buffer[] {
  const points = [...new Set(fractions.map((f) => Math.floor(f * bytes.length)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let at = 0;
  for (const point of [...points, bytes.length]) {
    if (point > at) chunks.push(bytes.subarray(at, point));
    at = Math.max(at, point);
  }
  return chunks;
}

for (const wire of ['msgpack', 'json'] as const) {
  describe(`property: the stdio server transport over a chunked ${wire} stream`, () => {
    it('delivers every random message, in order, as JSON would carry it', { timeout: 60_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 12 }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 20 }), async (messages, fractions) => {
          const stdin = new PassThrough();
          const transport = new StdioMsgpackServerTransport(stdin, new PassThrough(), { wire: 'auto' });
          const received: JSONRPCMessage[] = [];
          const errors: Error[] = [];
          transport.onmessage = (m) => received.push(m);
          transport.onerror = (e) => errors.push(e);
          await transport.start();
          const stream = Buffer.concat(messages.map((m) => (wire === 'msgpack' ? frameOf(m) : Buffer.from(JSON.stringify(m) + '\n'))));
          for (const chunk of cut(stream, fractions)) stdin.write(chunk);
          await waitUntil(() => received.length + errors.length >= messages.length, 5000, 'every message');
          assert.deepEqual(errors, []);
          assert.equal(transport.wire, wire);
          assert.deepEqual(received, JSON.parse(JSON.stringify(messages)));
          await transport.close();
        }),
        { numRuns: 60, seed: 20261122 },
      );
    });
  });
}
