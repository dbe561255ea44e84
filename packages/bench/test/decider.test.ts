// Quick mode's extra rounds for the stock-client comparison (runner/decider.ts): when they run, how many and
// how long, the interval a verdict reads over more than 6 rounds, and a scenario run end to end on sessions
// whose calls cost known amounts of CPU, where the scenario's short rounds cannot judge and the extra rounds
// decide.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  classify,
  extraRoundCalls,
  medianInterval,
  MIN_CALLS_TO_JUDGE,
  needsExtraRounds,
  nextBatch,
  runCallScenario,
  SilentProgress,
  STOCK_CLIENT,
  summarizeRatios,
  TimeBudget,
  undecided,
  type CallScenario,
  type DeciderSettings,
  type ScenarioResult,
} from 'mcp-msgpack-bench';
import { resultOf } from './fixtures/result.js';
import { fakePool, fakeSession } from './fixtures/fake-session.js';

describe('the median interval a verdict reads', () => {
  it('is min-max up to 6 rounds, so the rule "every round on one side" is unchanged there', () => {
    for (const n of [2, 4, 6]) {
      const sorted = Array.from({ length: n }, (_, i) => 0.9 + i / 10);
      assert.deepEqual(medianInterval(sorted), { low: sorted[0], high: sorted.at(-1) });
    }
    assert.deepEqual(summarizeRatios([1.2, 1.1, 1.3, 1.4]), { median: 1.25, min: 1.1, max: 1.4, rounds: 4 });
  });

  it('narrows to the 3rd smallest and 3rd largest of 12 rounds, where one stray round no longer makes a tie', () => {
    const ratios = [0.97, 1.12, 1.15, 1.18, 1.2, 1.22, 1.25, 1.27, 1.3, 1.32, 1.35, 1.6];
    assert.deepEqual(medianInterval(ratios), { low: 1.15, high: 1.32 });
    const summary = summarizeRatios(ratios)!;
    assert.deepEqual([summary.min, summary.low, summary.high, summary.max], [0.97, 1.15, 1.32, 1.6]);
    assert.equal(classify(summary, true), 'loses');
    // The same rounds read min-max (4 of them) would be a tie.
    assert.equal(classify({ median: 1.2, min: 0.97, max: 1.6, rounds: 4 }, true), 'ties');
  });
});

const SETTINGS = { baseline: STOCK_CLIENT, threshold: 1.05, metric: 'cpu' as const, minCalls: MIN_CALLS_TO_JUDGE, roundMs: 150, maxCalls: 1000, firstRounds: 4, maxRounds: 12 };
const comparison = (median: number, min: number, max: number) => {
  const ratio = summarizeRatios([min, median, median, max])!;
  return { candidate: 'defaults', baseline: STOCK_CLIENT, metrics: { cpu: { ratio, verdict: classify(ratio, true) } } };
};

describe('when extra rounds run', () => {
  it('when the target is a tie over 1.05x, or rounds too short to judge; not when it is met or missed', () => {
    assert.equal(undecided(comparison(1.2, 0.9, 1.5), 4, 40, SETTINGS), true, 'a tie over the allowance');
    assert.equal(undecided(comparison(0.9, 0.5, 1.6), 4, 3, SETTINGS), true, 'rounds of 3 calls');
    assert.equal(undecided(comparison(1.0, 0.8, 1.3), 4, 40, SETTINGS), false, 'met: the median within 1.05x');
    assert.equal(undecided(comparison(1.3, 1.1, 1.5), 4, 40, SETTINGS), false, 'missed: every round over');
    assert.equal(undecided(comparison(0.3, 0.2, 0.4), 4, 3, SETTINGS), false, 'short rounds, but every one far under');
  });

  it('to confirm a miss too: 4 rounds over 1.0 come by chance one time in 16', () => {
    assert.equal(needsExtraRounds(comparison(1.3, 1.1, 1.5), 4, 40, SETTINGS), true);
    assert.equal(needsExtraRounds(comparison(1.0, 0.8, 1.3), 4, 40, SETTINGS), false);
  });

  it('in batches: the first rounds from none, then two at a time (one in each order), up to the most', () => {
    assert.deepEqual(
      [0, 4, 10, 11, 12].map((have) => nextBatch(have, SETTINGS)),
      [4, 2, 2, 1, 0],
    );
  });

  it("sized to about a round's time of the slower variant, never under the judge's floor or the client count", () => {
    assert.equal(extraRoundCalls(0.5, 1, SETTINGS), 300);
    assert.equal(extraRoundCalls(100, 1, SETTINGS), MIN_CALLS_TO_JUDGE);
    assert.equal(extraRoundCalls(5, 16, SETTINGS), 30);
    assert.equal(extraRoundCalls(50, 16, SETTINGS), 16);
    assert.equal(extraRoundCalls(0.01, 1, SETTINGS), 1000);
  });

  it('within the time the run has for them, settled with what the rounds really took', () => {
    const budget = new TimeBudget(1000);
    assert.equal(budget.take(600), true);
    assert.equal(budget.take(600), false);
    budget.settle(600, 200);
    assert.equal(budget.remaining, 800);
    assert.equal(budget.take(800), true);
  });
});

/** Burns about `ms` of this process's CPU. */
function burn(ms: number): void {
  const until = process.cpuUsage();
  for (;;) {
    const used = process.cpuUsage(until);
    if ((used.user + used.system) / 1000 >= ms) return;
  }
}

/**
 * A scenario over two fake sessions in this process (so "server CPU" is this process's), our client's calls
 * costing 2x the stock client's: a loss in every round, which rounds of 3 calls cannot judge (only a ratio
 * past 2.1x, twice the allowance, is judged from them).
 */
async function run(budgetMs: number, extra: Partial<CallScenario> = {}): Promise<ScenarioResult> {
  const pool = fakePool();
  const variants = ['defaults', STOCK_CLIENT].map((id) => fakeSession(id).spec);
  const scenario: CallScenario = {
    kind: 'calls',
    name: 'small-calls/http-1',
    venue: 'small',
    title: 'fake',
    transport: 'http',
    clients: 1,
    variants,
    comparisons: [['defaults', STOCK_CLIENT]],
    call: async () => burn(1),
    callFor: (variant) => async () => burn(variant.id === 'defaults' ? 2 : 1),
    rounds: 4,
    roundMs: 1,
    warmupMs: 1,
    minCalls: 3,
    maxCalls: 3,
    ...extra,
  };
  const settings: DeciderSettings = { ...SETTINGS, roundMs: 1, budget: new TimeBudget(budgetMs) };
  return runCallScenario(scenario, 'node', pool, new SilentProgress(), settings);
}

describe('a scenario whose calls cycle through a list', () => {
  it('runs a whole multiple of the list a round, so no item weighs more than another', async () => {
    const scenario = await run(0, { callsMultiple: 7 });
    assert.equal(scenario.callsPerRound, 7, 'the 3 calls its budget gives, to the nearest whole list');
    for (const variant of scenario.variants) assert.ok(variant.values.cpu !== undefined, variant.id);
  });
});

describe('a scenario whose rounds are too short to judge the stock client', () => {
  it('runs the two alone for rounds of at least 12 calls, and the target is judged on those', async () => {
    const scenario = await run(60_000);
    assert.equal(scenario.callsPerRound, 3);
    const kept = scenario.comparisons.find((c) => c.baseline === STOCK_CLIENT)!;
    assert.equal(kept.rounds, 4, 'decided by the first batch');
    assert.equal(kept.callsPerRound, MIN_CALLS_TO_JUDGE);
    assert.match(kept.note ?? '', /^4 extra rounds of 12 calls, the two alone \(the target is decided\)$/);
    assert.ok(kept.metrics.cpu!.ratio.median > 1.3, `ratio ${kept.metrics.cpu!.ratio.median}`);
    const target = resultOf([scenario]).targets.find((t) => t.id === 'stock-client-cpu:small-calls/http-1')!;
    assert.equal(target.status, 'missed');
    assert.match(target.note ?? '', /4 extra rounds of 12 calls/);
  });

  it("without time left for them, keeps the scenario's own comparison, which a quick run cannot judge, and says why", async () => {
    const scenario = await run(0);
    const kept = scenario.comparisons.find((c) => c.baseline === STOCK_CLIENT)!;
    assert.equal(kept.rounds, undefined);
    assert.ok(
      scenario.notes.some((n) => /no extra rounds ran: quick mode's time for extra rounds was spent/.test(n)),
      scenario.notes.join('; '),
    );
    const target = resultOf([scenario]).targets.find((t) => t.id === 'stock-client-cpu:small-calls/http-1')!;
    assert.equal(target.status, 'cannot judge');
  });
});
