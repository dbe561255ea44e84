// --baseline DIR: any scenario A/B, this build's servers against another build's, rounds alternating both.
// The baseline here is this same checkout, so both sides are one build: the test checks that both ran and
// the report's shape, not the ratio (which on a loaded machine is anything near 1).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { BASELINE_SUFFIX, NOISE_BAND, parseOptions, renderText, runInThisRuntime, SCHEMA, SilentProgress, type BenchResult } from 'mcp-msgpack-bench';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CLI = fileURLToPath(new URL('../../bin/mcp-msgpack-bench.js', import.meta.url));
const runCli = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 });

describe('--baseline DIR', { timeout: 300_000 }, () => {
  it('a folder without a built benchmark, or none at all, is a one-line error before measuring', () => {
    const empty = mkdtempSync(join(tmpdir(), 'bench-baseline-'));
    try {
      for (const [dir, message] of [
        [empty, /--baseline .*: no built benchmark server there .*npm run build/],
        ['/nonexistent-mcp-msgpack', /--baseline \/nonexistent-mcp-msgpack: no such folder/],
      ] as const) {
        const result = runCli(['--baseline', dir, '--scenario', 'small']);
        assert.equal(result.status, 2, result.stderr);
        assert.match(result.stderr, message);
        assert.equal(result.stdout, '');
      }
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    assert.throws(() => parseOptions(['--baseline', ROOT, '--report', 'x.html']), /--report/);
  });

  it('runs every variant of our server on both builds and compares each with its baseline', { timeout: 300_000 }, async () => {
    const options = parseOptions(['--baseline', ROOT, '--scenario', 'small-calls/stdio,small-calls/http-1']);
    const run = await runInThisRuntime(options, new SilentProgress(), { smoke: true });
    assert.deepEqual(run.scenarios.map((s) => s.name).sort(), ['small-calls/http-1', 'small-calls/stdio']);
    assert.ok(
      run.skipped.every((s) => !s.includes('failed')),
      run.skipped.join('; '),
    );
    for (const scenario of run.scenarios) {
      const ids = scenario.variants.map((v) => v.id);
      const ours = ids.filter((id) => !id.endsWith(BASELINE_SUFFIX));
      // Both wires at least, each beside its baseline; the SDK's own server is not this repository's code.
      assert.ok(ours.includes('json') && ours.includes('msgpack'), `${scenario.name}: ${ids}`);
      assert.ok(!ids.includes('stock-json'), `${scenario.name}: the SDK's server has no baseline build`);
      assert.deepEqual(ids.filter((id) => id.endsWith(BASELINE_SUFFIX)).sort(), ours.map((id) => id + BASELINE_SUFFIX).sort());
      for (const variant of scenario.variants) {
        assert.equal(variant.failed, undefined, `${scenario.name}/${variant.id}: ${variant.failed}`);
        assert.ok(variant.values.cpu! > 0 && variant.values.received! > 0, `${scenario.name}/${variant.id}: not measured`);
      }
      assert.deepEqual(
        scenario.comparisons.map((c) => [c.candidate, c.baseline]),
        ours.map((id) => [id, id + BASELINE_SUFFIX]),
      );
      for (const comparison of scenario.comparisons) {
        const cpu = comparison.metrics.cpu;
        assert.ok(cpu && cpu.ratio.rounds === scenario.rounds && cpu.ratio.median > 0, `${scenario.name}: ${comparison.candidate} has no CPU ratio`);
      }
    }
    const result: BenchResult = {
      schema: SCHEMA,
      mode: 'quick',
      command: `mcp-msgpack-bench --baseline ${ROOT}`,
      startedAt: new Date().toISOString(),
      durationMs: 0,
      environment: { cpu: 'x', cores: 2, memoryBytes: 1, os: 'x', runtimes: {}, packages: {} },
      noiseBand: NOISE_BAND,
      baseline: ROOT,
      scenarios: run.scenarios,
      targets: [],
      skipped: run.skipped,
    };
    const text = renderText(result);
    assert.ok(text.startsWith(`A/B against the baseline build ${ROOT}`), text);
    for (const scenario of run.scenarios) for (const c of scenario.comparisons) assert.match(text, new RegExp(`${scenario.name.replace('/', '\\/')} \\[${run.runtime}\\] +${c.candidate} `));
    assert.ok(!text.includes('TARGETS'), 'an A/B run judges no targets');
  });
});
