// --calibrate: JSON against MessagePack per reply shape and size, through the codec venue's harness. Checks
// the shapes, that both codecs ran on each and the table's rows, not any figure.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calibrationPayloads, parseOptions, renderCalibration, runCalibration, SilentProgress } from 'mcp-msgpack-bench';

describe('--calibrate', { timeout: 120_000 }, () => {
  it('is an option, off by default', () => {
    assert.equal(parseOptions([]).calibrate, false);
    assert.equal(parseOptions(['--calibrate']).calibrate, true);
  });

  it('covers each shape the policy tells apart, at more sizes with --full', () => {
    const names = (full: boolean) => calibrationPayloads(full).map((p) => p.name);
    for (const prefix of ['small-request', 'small-result', 'tools-list', 'code-text-', 'prose-text-', 'records-', 'short-strings', 'embedding']) {
      assert.ok(
        names(false).some((n) => n.startsWith(prefix)),
        `quick mode has no ${prefix}`,
      );
    }
    assert.ok(names(true).length > names(false).length);
    assert.ok(names(true).includes('series-100k'));
  });

  it('measures both codecs on every shape and prints one row each', { timeout: 120_000 }, async () => {
    const results = await runCalibration(false, 'test', new SilentProgress(), true);
    assert.equal(results.length, calibrationPayloads(false).length);
    for (const result of results) {
      assert.equal(result.variants.length, 2, result.name);
      for (const variant of result.variants) assert.ok(variant.values.codecTime! > 0 && variant.values.encodedBytes! > 0, `${result.name}/${variant.id}`);
      assert.ok(result.comparisons[0]?.metrics.codecTime, `${result.name}: no ratio`);
    }
    const text = renderCalibration(results);
    assert.match(text, /^CALIBRATION \(test\)/);
    for (const payload of calibrationPayloads(false)) assert.match(text, new RegExp(`\\n${payload.name} `));
  });
});
