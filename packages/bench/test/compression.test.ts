// --scenario compression (issue 41) in its smallest mode: every corpus and shape replayed over HTTP by the
// five variants, compared with JSON + gzip 6, and the targets read from them. Checks the report's
// shape (variants, comparisons, metrics, targets, text), never a figure: a smoke run's numbers mean nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COMPRESSION_BASELINE, evaluateTargets, parseOptions, RECORDED_CORPORA, renderText, replayedResults, runInThisRuntime, SilentProgress, SYNTHETIC_SHAPES, type BenchResult } from 'mcp-msgpack-bench';

describe('--scenario compression', { timeout: 240_000 }, () => {
  it('replays every corpus and shape through the five variants and judges the targets', { timeout: 240_000 }, async () => {
    const options = parseOptions(['--scenario', 'compression', '--transport', 'http']);
    const run = await runInThisRuntime(options, new SilentProgress(), { smoke: true });
    const names = run.scenarios.map((s) => s.name);
    const expected = [...Object.keys(RECORDED_CORPORA), ...Object.keys(SYNTHETIC_SHAPES)].map((corpus) => `compression-${corpus}/http-1`);
    assert.deepEqual(names, expected, run.skipped.join('; '));
    for (const scenario of run.scenarios) {
      assert.equal(scenario.venue, 'compression');
      assert.deepEqual(
        scenario.variants.map((v) => v.id),
        ['json', COMPRESSION_BASELINE, 'stock-client', 'compressed', 'msgpack'],
      );
      for (const variant of scenario.variants) {
        assert.equal(variant.failed, undefined, `${scenario.name}/${variant.id}: ${variant.failed}`);
        assert.ok(variant.values.received! > 0 && variant.values.cpu !== undefined, `${scenario.name}/${variant.id}: ${JSON.stringify(variant.values)}`);
      }
      for (const candidate of ['compressed', 'stock-client']) {
        const comparison = scenario.comparisons.find((c) => c.candidate === candidate && c.baseline === COMPRESSION_BASELINE);
        assert.ok(comparison?.metrics.received && comparison.metrics.cpu && comparison.metrics.wire, `${scenario.name}: no ${candidate} / ${COMPRESSION_BASELINE}`);
      }
      // Every round replays the session a whole number of times (callsMultiple), each reply equally often.
      const corpus = scenario.name.replace(/^compression-/, '').replace(/\/http-1$/, '');
      assert.equal(scenario.callsPerRound % replayedResults(corpus).length, 0, `${scenario.name}: ${scenario.callsPerRound} calls a round`);
      // Coded replies are smaller than the same replies uncoded, whatever the machine: counted, not timed.
      const bytes = (id: string) => scenario.variants.find((v) => v.id === id)!.values.received!;
      assert.ok(bytes(COMPRESSION_BASELINE) < bytes('json') && bytes('compressed') < bytes('json'), scenario.name);
      assert.ok(bytes('compressed') < bytes('msgpack'), `${scenario.name}: the same client and server, coded and not`);
      assert.ok(
        scenario.comparisons.some((c) => c.candidate === 'compressed' && c.baseline === 'msgpack'),
        `${scenario.name}: no compressed / msgpack`,
      );
    }
    const partial = { mode: 'quick' as const, durationMs: 1, scenarios: run.scenarios };
    const targets = evaluateTargets(partial).filter((t) => t.scenario?.startsWith('compression-'));
    // Three targets per recorded corpus (our bytes and CPU, the stock client's bytes), none on the synthetic shapes.
    assert.equal(targets.length, 3 * Object.keys(RECORDED_CORPORA).length);
    for (const target of targets) {
      assert.ok(['met', 'missed', 'cannot judge'].includes(target.status), `${target.id}: ${target.status} ${target.note}`);
      assert.ok(target.scenario?.startsWith('compression-') && target.baseline === COMPRESSION_BASELINE);
    }
    const result = {
      schema: 'mcp-msgpack-bench/1',
      command: 'test',
      startedAt: '',
      environment: { cpu: '', cores: 2, memoryBytes: 0, os: '', runtimes: {}, packages: {} },
      noiseBand: 0.05,
      skipped: [],
      ...partial,
      targets,
    } as BenchResult;
    const text = renderText(result, { details: true });
    for (const name of expected) assert.ok(text.includes(name), `${name} not in the report`);
    assert.match(text, /JSON \+ gzip level 6/);
  });
});
