// Property: random JSON-RPC messages survive encodeFrame -> one byte stream cut at random points ->
// FrameReader -> MsgpackMessageCodec.decodeMessage, arriving as the JSON data model says they should.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { FrameReader, MsgpackMessageCodec } from 'mcp-msgpack-transport/wire';

/**
 * What the receiver should get for `value`: object keys holding undefined, functions or symbols dropped,
 * the same in arrays turned into null, NaN and ±Infinity null, -0 as 0 (all as JSON does), and lone
 * surrogates as U+FFFD (UTF-8 cannot carry them; SPEC.md).
 */
function asWireSees(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
      return value.replace(LONE_SURROGATE, '\ufffd');
    case 'number':
      return Number.isFinite(value) ? value + 0 : null;
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) return value.map((item) => (isDropped(item) ? null : asWireSees(item)));
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) if (!isDropped(item)) out[key] = asWireSees(item);
      return out;
    }
    default:
      return value;
  }
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const isDropped = (value: unknown): boolean => value === undefined || typeof value === 'function' || typeof value === 'symbol';

// Keys the wire or the schema gives a meaning to are left to the dedicated tests.
const key = fc.string({ unit: 'grapheme', maxLength: 8 }).filter((k) => k !== '__proto__' && k !== '_meta');
const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }), fc.string({ maxLength: 300 }));
const number = fc.oneof(
  fc.integer(),
  fc.integer({ min: -40, max: 300 }),
  fc.maxSafeInteger(),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }).map(Number), // integral beyond 32 and 53 bits
  fc.double(), // includes -0, NaN, ±Infinity, subnormals
);
const leaf = fc.oneof(text, number, fc.boolean(), fc.constant(null), fc.constant(undefined));

const { value: jsonLike } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('value'), { maxLength: 18 }), fc.dictionary(key, tie('value'), { maxKeys: 18 })),
}));
/** A chain of nested arrays and maps, deeper than random generation reaches but inside the depth limit. */
const deepChain = fc.tuple(fc.integer({ min: 10, max: 100 }), leaf).map(([depth, inner]) => {
  let value: unknown = inner;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { level: value };
  return value;
});
const object = fc.dictionary(key, fc.oneof({ arbitrary: jsonLike, weight: 9 }, { arbitrary: deepChain, weight: 1 }), { maxKeys: 8 });
const id = fc.oneof(fc.string({ maxLength: 10 }), fc.integer({ min: -(2 ** 53 - 1), max: 2 ** 53 - 1 }), fc.integer({ min: 0, max: 1000 }));
const meta = fc.record({ progressToken: id }, { requiredKeys: [] });

const message: fc.Arbitrary<JSONRPCMessage> = fc.oneof(
  fc.record({ jsonrpc: fc.constant('2.0' as const), id, method: fc.string({ maxLength: 20 }), params: object.chain((p) => meta.map((m) => ({ ...p, _meta: m }))) }),
  fc.record({ jsonrpc: fc.constant('2.0' as const), method: fc.string({ maxLength: 20 }), params: object }, { requiredKeys: ['jsonrpc', 'method'] }),
  fc.record({ jsonrpc: fc.constant('2.0' as const), id, result: object }),
  fc.record({ jsonrpc: fc.constant('2.0' as const), id, error: fc.record({ code: fc.integer(), message: text, data: jsonLike }, { requiredKeys: ['code', 'message'] }) }, { requiredKeys: ['jsonrpc', 'error'] }),
) as fc.Arbitrary<JSONRPCMessage>;

/** Cuts `bytes` at the given offsets (any order, duplicates allowed) into chunks. */
function cut(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  return chunks;
}

describe('property: frames through a chunked stream', () => {
  it('every random message arrives, in order, as the JSON data model sees it', () => {
    const codec = new MsgpackMessageCodec();
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { maxLength: 40 }), (messages, offsets) => {
        // All frames are kept until the end: the encoder's arena must not overwrite earlier ones.
        const frames = messages.map((m) => codec.encodeFrame(m));
        const stream = Buffer.concat(frames);
        const reader = new FrameReader();
        const received: unknown[] = [];
        for (const chunk of cut(stream, offsets)) reader.push(chunk, (payload) => received.push(codec.decodeMessage(payload)));
        assert.equal(reader.pendingBytes, 0);
        reader.end();
        assert.deepStrictEqual(received, messages.map(asWireSees));
      }),
      { numRuns: 300 },
    );
  });

  it('a stream fed one byte at a time gives the same messages', () => {
    const codec = new MsgpackMessageCodec();
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 3 }), (messages) => {
        const stream = Buffer.concat(messages.map((m) => codec.encodeFrame(m)));
        const reader = new FrameReader();
        const received: unknown[] = [];
        for (let i = 0; i < stream.length; i++) reader.push(stream.subarray(i, i + 1), (payload) => received.push(codec.decodeMessage(payload)));
        assert.deepStrictEqual(received, messages.map(asWireSees));
      }),
      { numRuns: 50 },
    );
  });
});
