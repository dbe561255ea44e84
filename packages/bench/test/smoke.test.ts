// Runs every available scenario for a moment (tiny budgets) on both wires and both transports, and checks
// the shape of what comes out: the result schema, the text table, the verdicts and the targets. It checks
// no timing: the numbers of a smoke run mean nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateTargets, METRICS, parseOptions, renderHtml, renderText, runInThisRuntime, SCHEMA, SilentProgress, SUMMARY_WIDTH, type BenchResult } from 'mcp-msgpack-bench';

const VERDICTS = new Set(['wins', 'ties', 'loses']);

// The limit is for a hung run, not a slow one: on a loaded 2-core machine the run took 3.7 minutes.
describe('smoke run of every scenario', { timeout: 420_000 }, () => {
  // The same limit on the test itself: Bun's runner applies its own default (120 s) to a test, not the describe's.
  it('produces well-formed results, table, verdicts and targets', { timeout: 420_000 }, async () => {
    const options = parseOptions([]);
    const run = await runInThisRuntime(options, new SilentProgress(), { smoke: true });
    // Every kind of server child (stdio stock, official and raw, HTTP, the relay) stopped as the runner stops it:
    // not one is reported as dead (runner/child-watch.ts).
    assert.deepEqual(run.childExits ?? [], []);
    const venues = new Set(run.scenarios.map((s) => s.venue));
    for (const venue of ['codec', 'text', 'object', 'numeric', 'small', 'revision']) assert.ok(venues.has(venue as never), `no ${venue} scenario ran: ${run.skipped.join('; ')}`);
    const transports = new Set(run.scenarios.map((s) => s.transport));
    for (const transport of ['in-process', 'stdio', 'http']) assert.ok(transports.has(transport as never), `nothing ran over ${transport}`);
    assert.ok(
      run.scenarios.some((s) => s.clients === 16),
      'no scenario with 16 concurrent clients',
    );

    for (const scenario of run.scenarios) {
      assert.ok(scenario.variants.length >= 2, `${scenario.name}: fewer than two variants`);
      const ids = new Set(scenario.variants.map((v) => v.id));
      if (scenario.venue === 'revision') {
        const both = ['session-msgpack', 'stateless-msgpack', 'session-json', 'stateless-json'].every((id) => ids.has(id));
        assert.ok(both, `${scenario.name}: both revisions on both wires must run (${[...ids]})`);
        assert.ok(
          scenario.variants.every((v) => !v.failed),
          `${scenario.name}: a variant failed`,
        );
      } else if (scenario.venue !== 'codec') {
        assert.ok(ids.has('msgpack') && ids.has('json'), `${scenario.name}: both wires must run (${[...ids]})`);
      }
      for (const variant of scenario.variants) {
        if (variant.failed) continue;
        for (const [key, value] of Object.entries(variant.values)) {
          assert.ok(key in METRICS, `${scenario.name}: unknown metric ${key}`);
          assert.ok(Number.isFinite(value) && value >= 0, `${scenario.name}/${variant.id}: ${key} = ${value}`);
        }
        if (scenario.venue !== 'codec') {
          assert.ok(variant.values.received! > 0 && variant.values.sent! > 0, `${scenario.name}/${variant.id}: no bytes counted`);
          assert.ok(variant.values.clientCpu !== undefined && variant.values.clientCpu > 0, `${scenario.name}/${variant.id}: no client CPU`);
          assert.ok(variant.values.p50! > 0, `${scenario.name}/${variant.id}: no latency`);
        }
      }
      for (const comparison of scenario.comparisons) {
        // A baseline min(a,b) is the cheaper of two variants of the scenario, round by round.
        const baselines = /^min\(([^,]+),([^)]+)\)$/.exec(comparison.baseline)?.slice(1) ?? [comparison.baseline];
        assert.ok(ids.has(comparison.candidate) && baselines.every((id) => ids.has(id)), `${scenario.name}: ${comparison.candidate} / ${comparison.baseline}`);
        for (const entry of Object.values(comparison.metrics)) {
          assert.ok(VERDICTS.has(entry.verdict));
          assert.ok(entry.ratio.min <= entry.ratio.median && entry.ratio.median <= entry.ratio.max);
        }
      }
    }
    // Over HTTP our three wires run side by side, and the adaptive one is compared with the cheaper of the two.
    for (const scenario of run.scenarios.filter((s) => s.transport === 'http' && ['text', 'object', 'numeric', 'small'].includes(s.venue))) {
      const ids = scenario.variants.map((v) => v.id);
      assert.ok(
        ['json', 'msgpack', 'adaptive'].every((id) => ids.includes(id)),
        `${scenario.name}: ${ids}`,
      );
      assert.ok(
        scenario.comparisons.some((c) => c.candidate === 'adaptive' && c.baseline === 'min(json,msgpack)'),
        `${scenario.name}: no adaptive / min(json,msgpack)`,
      );
    }
    // In every call scenario, over stdio and HTTP, our client on its defaults and the stock SDK client called
    // the same server program on its defaults, in the same rounds (issue 30); media too.
    for (const scenario of run.scenarios.filter((s) => ['text', 'object', 'numeric', 'small', 'media'].includes(s.venue) && !s.name.includes('-link'))) {
      const kept = scenario.comparisons.find((c) => c.baseline === 'stock-client');
      assert.ok(kept?.metrics.cpu && kept.metrics.p50, `${scenario.name}: no ours on defaults / stock-client comparison`);
      assert.equal(kept.candidate, scenario.transport === 'stdio' ? 'adaptive' : 'defaults', scenario.name);
      assert.ok(!scenario.variants.some((v) => v.failed), `${scenario.name}: ${scenario.variants.map((v) => v.failed ?? '').join(' ')}`);
    }
    // Rounds of 2 calls cannot judge the stock client's target: the pair ran extra rounds of its own (up to
    // the smoke run's 4), and its comparison says so.
    const extra = run.scenarios.flatMap((s) => s.comparisons.filter((c) => c.baseline === 'stock-client' && c.rounds !== undefined).map((c) => ({ s, c })));
    assert.ok(extra.length > 0, 'no stock-client comparison ran extra rounds');
    for (const { s, c } of extra) {
      assert.ok(c.rounds! > s.rounds && c.rounds! <= 4 && c.metrics.cpu!.ratio.rounds === c.rounds, `${s.name}: ${c.rounds} rounds`);
      assert.match(c.note ?? '', /^\d extra rounds of \d+ calls, the two alone/);
    }
    // MessagePack carries the same small-call messages in fewer bytes than JSON: a property of the encoding.
    const small = run.scenarios.find((s) => s.name === 'small-calls/stdio');
    assert.ok(small, 'small-calls/stdio missing');
    assert.equal(small.comparisons.find((c) => c.candidate === 'msgpack' && c.baseline === 'json')?.metrics.wire?.verdict, 'wins');

    // The raw pipe baseline answers with the file itself: 1 MiB and a 4-byte header per call.
    const mediaStdio = run.scenarios.find((s) => s.name === 'media-1MiB/stdio');
    if (mediaStdio) {
      const raw = mediaStdio.variants.find((v) => v.id === 'raw');
      assert.ok(raw && !raw.failed, `raw baseline missing or failed: ${raw?.failed ?? ''}`);
      assert.equal(raw.values.received, 1024 * 1024 + 4);
      assert.ok(mediaStdio.comparisons.some((c) => c.candidate === 'msgpack-native' && c.baseline === 'raw'));
    }

    const partial = {
      schema: SCHEMA,
      mode: options.mode,
      command: 'mcp-msgpack-bench (smoke)',
      startedAt: new Date().toISOString(),
      durationMs: 1,
      environment: { cpu: 'test', cores: 1, memoryBytes: 1, os: 'test', runtimes: { [run.runtime]: run.version }, packages: {} },
      noiseBand: 0.05,
      scenarios: run.scenarios,
      skipped: run.skipped,
    } satisfies Omit<BenchResult, 'targets'>;
    const result: BenchResult = { ...partial, targets: evaluateTargets(partial) };
    const parsed = JSON.parse(JSON.stringify(result)) as BenchResult;
    assert.equal(parsed.schema, 'mcp-msgpack-bench/1');
    assert.ok(result.targets.length >= 6);
    for (const target of result.targets) assert.ok(['met', 'missed', 'tie', 'cannot judge', 'not measured'].includes(target.status), target.status);

    // The default report is the summary: what ran, the verdict per venue and the targets' count first, then
    // the legend (every label the tables use), the targets, one headline row per scenario; within 80 columns.
    const summary = renderText(result);
    const lines = summary.split('\n');
    for (const line of lines) assert.ok(line.length <= SUMMARY_WIDTH, `summary line over ${SUMMARY_WIDTH} columns: ${line}`);
    assert.equal(SUMMARY_WIDTH, 80);
    assert.match(lines[0]!, /^mcp-msgpack-bench (\S+ )?measured /);
    const order: number[] = [];
    for (const heading of ['VERDICT PER VENUE', 'TARGETS: ', 'HOW TO READ WHAT FOLLOWS', 'WIRES SIDE BY SIDE', 'TARGETS: ', 'HEADLINE RATIOS']) {
      order.push(lines.findIndex((line, i) => i > (order.at(-1) ?? 0) && line.startsWith(heading)));
    }
    assert.ok(
      order.every((at, i) => at > 0 && (i === 0 || at > order[i - 1]!)),
      `sections out of order: ${order}`,
    );
    for (const venue of new Set(run.scenarios.map((s) => s.venue))) {
      assert.ok(
        lines.slice(order[0]!, order[1]!).some((line) => line.startsWith(`  ${venue} `)),
        `no verdict line for ${venue}`,
      );
    }
    for (const scenario of run.scenarios.filter((s) => s.comparisons.length > 0)) {
      assert.ok(
        lines.some((line) => line.startsWith(`  ${scenario.name} `)),
        `no headline row for ${scenario.name}`,
      );
    }
    // Every variant id in a table's group title ("msgpack-native / json:") is defined in the legend before it.
    const legendText = lines.slice(order[2]!, order[3]!).join(' ');
    for (const title of lines.slice(order[4]!).filter((line) => /^\S+ \/ \S+( \(\w+\))?( on \w+)?:$/.test(line))) {
      // min(a,b) is defined once as min(A,B), and a and b as variants.
      if (title.includes('min(')) assert.ok(legendText.includes('min(A,B):'), `min(A,B) (in "${title}") is not defined in the legend`);
      for (const id of title
        .replace(/( on \w+)?:$/, '')
        .replace(/min\(([^,]+),([^)]+)\)/, '$1 $2')
        .replace(/[()]/g, '')
        .split(/ \/ | /)) {
        assert.ok(new RegExp(`(^|[ ,])${id}[:,]`).test(legendText), `${id} (in "${title}") is not defined in the legend`);
      }
    }
    for (const heading of ['MEASURED VALUES', 'RATIOS candidate / baseline', 'VERDICTS']) assert.ok(!summary.includes(heading), `the summary shows ${heading}`);
    assert.ok(lines.some((line) => line.startsWith('STOCK CLIENT: ')) && lines.some((line) => line.startsWith('OUR CLIENT ON ITS DEFAULTS / THE STOCK SDK CLIENT')), 'no stock-client headline or table');
    const text = renderText(result, { details: true });
    assert.ok(text.startsWith(summary), 'the details follow the summary');
    for (const heading of ['MEASURED VALUES', 'RATIOS', 'VERDICTS', 'TARGETS', 'small-calls/stdio', 'msgpack / json']) assert.ok(text.includes(heading), `text report lacks ${heading}`);
    const html = renderHtml(result);
    assert.ok(html.startsWith('<!doctype html>'));
    assert.ok(!/(src|href)="https?:/.test(html), 'the HTML report must not load external assets');
  });
});
