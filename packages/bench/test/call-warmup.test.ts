// The warm-up counted in calls (runner/call-warmup.ts, the compression venue's): every session makes its
// calls in turns, in windows whose server CPU is recorded, before the rounds; a session reused from an
// earlier scenario makes its own (smaller) number; a session that fails there is reported, the others go
// on; and the report says whether the rounds are steady state. Fake sessions in this process, so "server CPU"
// is this process's: the test reads counts and order, never a figure.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compressionScenarios, compressionWarmup, renderText, runCallScenario, SilentProgress, type CallScenario, type CallWarmup, type ScenarioResult } from 'mcp-msgpack-bench';
import { fakePool, fakeSession } from './fixtures/fake-session.js';
import { resultOf } from './fixtures/result.js';

interface Fake {
  /** The session id of every call, in the order they were made (rounds included). */
  calls: string[];
  scenario: ScenarioResult;
}

async function run(callWarmup: CallWarmup, options: { reused?: string[]; failAfter?: Record<string, number> } = {}): Promise<Fake> {
  const calls: string[] = [];
  const pool = fakePool('replay', options.reused);
  const scenario: CallScenario = {
    kind: 'calls',
    name: 'compression-fake/http-1',
    venue: 'compression',
    title: 'fake',
    transport: 'http',
    clients: 1,
    variants: ['a', 'b'].map((id) => fakeSession(id, 'replay').spec),
    comparisons: [['a', 'b']],
    call: async () => {},
    callFor: (variant) => async () => {
      const made = calls.filter((id) => id === variant.id).length;
      if (made >= (options.failAfter?.[variant.id] ?? Infinity)) throw new Error(`${variant.id} broke`);
      calls.push(variant.id);
    },
    rounds: 2,
    roundMs: 0,
    warmupMs: 0,
    minCalls: 4,
    maxCalls: 4,
    callsMultiple: 4,
    callWarmup,
  };
  return { calls, scenario: await runCallScenario(scenario, 'node', pool, new SilentProgress(), undefined) };
}

/** The session ids of a run's calls, one letter a stretch of calls to the same session: "abab" for turns. */
function stretches(calls: string[]): string {
  return calls.filter((id, i) => id !== calls[i - 1]).join('');
}

describe('a warm-up counted in calls', () => {
  it('makes each session its calls in turns, a window each, after the warm-up in ms and before the rounds', async () => {
    const { calls, scenario } = await run({ calls: 20, reusedCalls: 0, window: 6, steady: true });
    // A window is a whole number of the scenario's list (callsMultiple 4): 6 becomes 8, so 8 + 8 + 4 calls.
    assert.deepEqual(scenario.warmup?.cpuMsPerCall.a?.length, 3);
    assert.deepEqual(scenario.warmup?.cpuMsPerCall.b?.length, 3);
    assert.equal(scenario.warmup?.window, 8);
    assert.equal(scenario.warmup?.steady, true);
    // The ms warm-up (warmupMs 0: one sample of 2 calls each), then 20 calls each in turns, then 2 rounds of 4.
    assert.equal(calls.length, 2 * (2 + 20 + 2 * 4));
    assert.equal(scenario.warmupCalls, 2 + 20);
    const warmup = calls.slice(4, 4 + 40);
    assert.equal(stretches(warmup), 'ababab', 'one window each in turn, not one session after the other');
    assert.equal(stretches(calls.slice(44)), 'aba', 'the rounds alternate as before: a b, then b a');
  });

  it('gives a session an earlier scenario warmed its own count, and none when that is 0', async () => {
    const { calls, scenario } = await run({ calls: 12, reusedCalls: 0, window: 4, steady: false }, { reused: ['b'] });
    assert.equal(calls.filter((id) => id === 'a').length, 2 + 12 + 2 * 4);
    assert.equal(calls.filter((id) => id === 'b').length, 2 + 2 * 4);
    assert.deepEqual(Object.keys(scenario.warmup?.cpuMsPerCall ?? {}), ['a']);
  });

  it('reports a session whose call fails in the warm-up and warms the others to the end', async () => {
    const { calls, scenario } = await run({ calls: 16, reusedCalls: 0, window: 4, steady: true }, { failAfter: { b: 7 } });
    assert.match(scenario.variants.find((v) => v.id === 'b')?.failed ?? '', /b broke/);
    assert.equal(calls.filter((id) => id === 'a').length, 2 + 16 + 2 * 4);
    assert.equal(calls.filter((id) => id === 'b').length, 7);
    assert.ok(
      scenario.notes.some((n) => n.includes('b broke')),
      scenario.notes.join('; '),
    );
  });

  it('says in the report whether the rounds are steady state, with the windows of server CPU', async () => {
    for (const steady of [true, false]) {
      const { scenario } = await run({ calls: 8, reusedCalls: 0, window: 4, steady });
      const text = renderText(resultOf([scenario]), { details: true });
      assert.ok(text.includes(steady ? 'steady state: warmed by calls' : 'NOT steady state'), text);
      if (process.platform === 'linux') assert.match(text, /warm-up server CPU per call \(µs\), 4-call windows, a: \d+ \d+/);
    }
  });
});

describe("the compression venue's warm-up", () => {
  it('is steady state in --full, shorter and said to be warming in quick mode, and none in the smoke run', () => {
    const full = compressionWarmup('full', false)!;
    const quick = compressionWarmup('quick', false)!;
    assert.ok(full.steady && !quick.steady);
    assert.ok(full.calls > quick.calls && full.reusedCalls > 0);
    assert.equal(compressionWarmup('quick', true), undefined);
    const budget = { rounds: 1, roundMs: 0, warmupMs: 0, minCalls: 1, maxCalls: 1 };
    for (const scenario of compressionScenarios(budget, full)) assert.deepEqual(scenario.callWarmup, full);
    for (const scenario of compressionScenarios(budget)) assert.equal(scenario.callWarmup, undefined);
  });
});
