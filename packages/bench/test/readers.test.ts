// --scenario readers: the stdio readers alone on chunked streams. Checks that every reader read every message
// of both streams (runReaders throws otherwise), each was timed and compared with the SDK's, and the table's
// rows; no figure.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderReaders, runReaders, SilentProgress } from 'mcp-msgpack-bench';

describe('--scenario readers', { timeout: 120_000 }, () => {
  it('reads both streams with each reader and compares ours with the SDK', { timeout: 120_000 }, async () => {
    const results = await runReaders(false, 'test', new SilentProgress());
    assert.deepEqual(
      results.map((r) => r.name),
      ['readers/one-5MiB', 'readers/1000-small'],
    );
    for (const result of results) {
      assert.deepEqual(
        result.variants.map((v) => v.id),
        ['sdk-lines', 'lines', 'frames'],
      );
      for (const variant of result.variants) assert.ok(variant.values.decodeTime! > 0, `${result.name}/${variant.id}`);
      assert.deepEqual(
        result.comparisons.map((c) => `${c.candidate}/${c.baseline}`),
        ['lines/sdk-lines', 'frames/sdk-lines'],
      );
      for (const comparison of result.comparisons) assert.equal(comparison.metrics.decodeTime?.ratio.rounds, result.rounds);
    }
    const text = renderReaders(results);
    assert.match(text, /^READERS \(test\)/);
    assert.equal(text.match(/readers\/one-5MiB /g)?.length, 3);
  });
});
