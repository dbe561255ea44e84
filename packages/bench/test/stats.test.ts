// Percentiles, ratio summaries and the verdict rule (wins / ties / loses) that every report relies on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classify, median, NOISE_BAND, percentile, summarizeRatios } from 'mcp-msgpack-bench';

describe('percentile', () => {
  it('interpolates linearly between ranks', () => {
    const values = [10, 20, 30, 40, 50];
    assert.equal(percentile(values, 0), 10);
    assert.equal(percentile(values, 50), 30);
    assert.equal(percentile(values, 100), 50);
    assert.equal(percentile(values, 25), 20);
    assert.equal(percentile([1, 2], 50), 1.5);
    assert.ok(Math.abs(percentile(values, 99) - 49.6) < 1e-9);
  });

  it("does not depend on input order and does not sort the caller's array", () => {
    const values = [5, 1, 4, 2, 3];
    assert.equal(median(values), 3);
    assert.deepEqual(values, [5, 1, 4, 2, 3]);
  });

  it('gives NaN for no values and the value itself for one', () => {
    assert.ok(Number.isNaN(percentile([], 50)));
    assert.equal(percentile([7], 95), 7);
  });
});

describe('summarizeRatios', () => {
  it('reports median, min and max over rounds, dropping non-finite ratios', () => {
    assert.deepEqual(summarizeRatios([0.8, 0.9, 0.7, Number.POSITIVE_INFINITY, Number.NaN]), { median: 0.8, min: 0.7, max: 0.9, rounds: 3 });
    assert.equal(summarizeRatios([Number.NaN]), undefined);
  });
});

describe('classify', () => {
  const summary = (median: number, min: number, max: number) => ({ median, min, max, rounds: 4 });

  it('calls a cost a win only when every round is below 1 and the median is outside the noise band', () => {
    assert.equal(classify(summary(0.5, 0.4, 0.6), true), 'wins');
    assert.equal(classify(summary(1.5, 1.2, 1.9), true), 'loses');
  });

  it('calls a range that straddles 1.0 a tie, even with a far median', () => {
    assert.equal(classify(summary(0.6, 0.4, 1.1), true), 'ties');
    assert.equal(classify(summary(1.6, 0.9, 2.0), true), 'ties');
  });

  it('calls a median inside the noise band a tie, even when all rounds agree', () => {
    assert.equal(classify(summary(1 - NOISE_BAND / 2, 0.96, 0.99), true), 'ties');
    assert.equal(classify(summary(0.9, 0.85, 0.95), true, 0.15), 'ties');
  });

  it('reads throughput the other way round: higher is better', () => {
    assert.equal(classify(summary(2, 1.5, 3), false), 'wins');
    assert.equal(classify(summary(0.5, 0.4, 0.6), false), 'loses');
  });
});
