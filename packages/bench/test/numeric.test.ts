// The numeric venue's payloads: deterministic (same value every time, on every runtime), the right sizes
// and kinds of numbers, and present in the codec venue and in the plan over every transport.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { CanonicalEncoder } from 'mcp-msgpack-transport/wire';
import { buildPlan, parseOptions, payloads } from 'mcp-msgpack-bench';

const digest = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);

describe('numeric payloads', () => {
  it('an embedding: 1,536 float32-representable floats and 1,536 integer token ids, the same on every runtime', () => {
    const a = payloads.embeddingResult();
    assert.deepEqual(payloads.embeddingResult(), a);
    assert.equal(a.embedding.length, 1536);
    assert.equal(a.tokenIds.length, 1536);
    assert.equal(a.dimensions, 1536);
    assert.ok(a.embedding.every((x) => Math.fround(x) === x && Math.abs(x) <= 0.1 && !Number.isInteger(x)));
    assert.ok(a.tokenIds.every((n) => Number.isInteger(n) && n >= 0 && n < 100_000));
    // The same bits on Node and on Bun (the PRNG is integer arithmetic; the digest is of its JSON text).
    assert.equal(digest(a), '085dbde74568bcd5');
    assert.notDeepEqual(payloads.embeddingResult(8), a);
  });

  it('a series: 100,000 timestamps one second apart and 100,000 float values, the same on every runtime', () => {
    const s = payloads.seriesResult();
    assert.equal(s.timestamps.length, 100_000);
    assert.equal(s.values.length, 100_000);
    assert.ok(s.timestamps.every((t, i) => Number.isSafeInteger(t) && (i === 0 || t - s.timestamps[i - 1]! === 1000)));
    assert.ok(s.values.every((v) => Number.isFinite(v)));
    assert.ok(s.values.filter((v) => !Number.isInteger(v)).length > 99_000, 'values are floats');
    assert.equal(digest(s), '9264b05e825a3877');
  });

  it('MessagePack carries them in about half the bytes of JSON', () => {
    const encoder = new CanonicalEncoder();
    for (const value of [payloads.embeddingResult(), payloads.seriesResult()]) {
      const json = Buffer.byteLength(JSON.stringify(value));
      const msgpack = encoder.encode(value).length;
      assert.ok(msgpack / json > 0.3 && msgpack / json < 0.7, `msgpack ${msgpack} vs json ${json}`);
    }
  });

  it('the plan has them as codec payloads and as calls over stdio and HTTP with 1 and 16 clients', async () => {
    const quick = await buildPlan(parseOptions([]));
    const names = [...quick.codec.payloads.map((p) => `codec/${p.name}`), ...quick.calls.map((s) => s.name)];
    for (const name of ['codec/embedding-1536', 'codec/series-100k', 'embedding-1536/stdio', 'series-100k/stdio', 'embedding-1536/http-1', 'series-100k/http-1', 'embedding-1536/http-16']) {
      assert.ok(names.includes(name), `${name} not planned`);
    }
    const full = await buildPlan(parseOptions(['--full']));
    assert.ok(full.calls.some((s) => s.name === 'series-100k/http-16'));
    for (const s of full.calls.filter((c) => c.venue === 'numeric' && c.transport === 'http')) {
      assert.deepEqual(
        s.variants.filter((v) => v.stack === 'ours' && !v.gzip && !v.defaults).map((v) => [v.id, v.encoding]),
        [
          ['json', undefined],
          ['msgpack', 'smallest'],
          ['adaptive', 'cheapest-cpu'],
        ],
      );
      // Besides our three wires: our client and server on their defaults, and the stock client on that server.
      assert.deepEqual(
        s.variants.filter((v) => v.defaults).map((v) => [v.id, v.encoding, v.client]),
        [
          ['defaults', undefined, undefined],
          ['stock-client', undefined, 'stock'],
        ],
      );
    }
  });
});
