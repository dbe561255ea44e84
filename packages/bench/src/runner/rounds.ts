import { performance } from 'node:perf_hooks';
import type { MetricKey, ScenarioResult, VariantResult, ComparisonResult } from '../results.js';
import { METRICS } from '../results.js';
import { classify, median, percentile, summarizeRatios } from '../stats.js';
import type { Progress } from '../report/progress.js';
import { measureRound, type CallFunction, type RoundSample } from './measure.js';
import type { SessionPool } from './pool.js';
import type { Session } from './session.js';
import type { VariantSpec } from './variant.js';

/** A venue measured through real server processes: variants called in alternating rounds. */
export interface CallScenario {
  kind: 'calls';
  name: string;
  venue: ScenarioResult['venue'];
  title: string;
  transport: 'stdio' | 'http';
  clients: number;
  variants: VariantSpec[];
  /** [candidate id, baseline id] pairs: each gets per-round ratios and verdicts. */
  comparisons: Array<[string, string]>;
  call: CallFunction;
  /**
   * [candidate, a, b]: the candidate against the better of two variants, round by round (the lower cost, or
   * the higher calls/s, of a and b in that round), under the baseline id `bestOfId(a, b)`.
   */
  bestOf?: Array<[string, string, string]>;
  /** Optional per-variant call (e.g. the native-bytes client reads results differently). */
  callFor?: (variant: VariantSpec) => CallFunction;
  /** Looks at a variant's results and returns a note when something is not what its label says. */
  check?: (variant: VariantSpec, values: VariantResult['values']) => string | undefined;
  /** Says why a variant's call fails when that failure is expected, in place of the raw error. */
  expectedFailure?: (variant: VariantSpec) => string | undefined;
  rounds: number;
  roundMs: number;
  warmupMs: number;
  /** The warm-up of a session a previous scenario already ran (its server and clients are warm): at most warmupMs. */
  reusedWarmupMs?: number;
  minCalls: number;
  maxCalls: number;
  mediaDir?: string;
}

const ROUND_METRICS: Array<[MetricKey, (s: RoundSample) => number | undefined]> = [
  ['cpu', (s) => s.cpuMsPerCall],
  ['clientCpu', (s) => s.clientCpuMsPerCall],
  ['peakRss', (s) => s.peakRss],
  ['steadyRss', (s) => s.steadyRss],
  ['wire', (s) => s.sentPerCall + s.receivedPerCall],
  ['sent', (s) => s.sentPerCall],
  ['received', (s) => s.receivedPerCall],
  ['p50', (s) => s.p50],
  ['p95', (s) => s.p95],
  ['p99', (s) => s.p99],
  ['throughput', (s) => s.callsPerSecond],
];

/**
 * Starts every variant's server and clients, warms them up, then runs rounds that alternate the variants
 * (A B, then B A, ...) so drift over time hits all of them alike. Ratios are taken round by round.
 */
export async function runCallScenario(scenario: CallScenario, runtime: string, pool: SessionPool, progress: Progress): Promise<ScenarioResult> {
  const sessions: Session[] = [];
  const failed = new Map<string, string>();
  const fail = async (session: Session | undefined, id: string, error: unknown) => {
    const transportError = session?.lastError();
    const message = ((error as Error)?.message ?? String(error)) + (transportError ? ` (transport: ${transportError})` : '');
    // Only a started session's calls fail as expected; a server that does not start is reported as is.
    const expected = session && scenario.expectedFailure?.(session.spec);
    failed.set(id, expected ? `as expected: ${expected}` : message.split('\n')[0]!.slice(0, 300));
    progress.note(`${scenario.name}: ${id} failed: ${failed.get(id)}`);
    if (session) {
      sessions.splice(sessions.indexOf(session), 1);
      await pool.drop(session.spec);
    }
  };
  const reused = new Set<string>();
  try {
    for (const variant of scenario.variants) {
      progress.update(`${scenario.name}: starting ${variant.label}`);
      try {
        if (pool.has(variant)) reused.add(variant.id);
        sessions.push(await pool.get(variant));
      } catch (error) {
        await fail(undefined, variant.id, error);
      }
    }
    const callOf = (session: Session) => scenario.callFor?.(session.spec) ?? scenario.call;
    // Warm-up: at least warmupMs of calls per variant (JIT, caches, connection pools), which also tells
    // how long a call takes, so every variant can get the same number of calls per round.
    let slowestMsPerCall = 0;
    let warmupCalls = 0;
    for (const session of [...sessions]) {
      progress.update(`${scenario.name}: warm-up ${session.spec.label}`);
      try {
        const started = performance.now();
        let calls = 0;
        const perCall: number[] = [];
        do {
          const sample = await measureRound(session, Math.max(2, scenario.clients), callOf(session));
          calls += sample.calls;
          perCall.push(sample.wallMs / sample.calls);
        } while (performance.now() - started < (reused.has(session.spec.id) ? Math.min(scenario.warmupMs, scenario.reusedWarmupMs ?? Infinity) : scenario.warmupMs));
        // The later half of the warm-up says what a warm call costs.
        slowestMsPerCall = Math.max(slowestMsPerCall, median(perCall.slice(Math.floor(perCall.length / 2))));
        warmupCalls = Math.max(warmupCalls, calls);
      } catch (error) {
        await fail(session, session.spec.id, error);
      }
    }
    const wanted = Math.round(scenario.roundMs / Math.max(slowestMsPerCall, 0.001));
    const callsPerRound = Math.min(scenario.maxCalls, Math.max(scenario.minCalls, scenario.clients, wanted));
    const samples = new Map<string, RoundSample[]>(scenario.variants.map((v) => [v.id, []]));
    for (let round = 0; round < scenario.rounds; round++) {
      const order = round % 2 === 0 ? [...sessions] : [...sessions].reverse();
      for (const session of order) {
        progress.update(`${scenario.name}: round ${round + 1}/${scenario.rounds} ${session.spec.label}`);
        try {
          samples.get(session.spec.id)!.push(await measureRound(session, callsPerRound, callOf(session)));
        } catch (error) {
          await fail(session, session.spec.id, error);
        }
      }
      progress.tick();
    }
    const comparisons: ComparisonResult[] = [];
    const notes: string[] = [];
    for (const [id, message] of failed) notes.push(`${labelOf(scenario, id)} failed: ${message}`);
    const variants = scenario.variants.map((v) => ({ ...summarizeVariant(v, samples.get(v.id)!), ...(failed.has(v.id) ? { failed: failed.get(v.id) } : {}) }));
    for (const variant of scenario.variants) {
      const note = scenario.check?.(variant, variants.find((v) => v.id === variant.id)!.values);
      if (note) notes.push(note);
    }
    for (const [candidate, baseline] of scenario.comparisons) {
      const missing = [candidate, baseline].filter((id) => failed.has(id));
      if (missing.length > 0) notes.push(`${candidate} / ${baseline} not compared: ${missing.join(' and ')} failed`);
      else comparisons.push(compareRounds(candidate, baseline, samples.get(candidate)!, samples.get(baseline)!, ROUND_METRICS));
    }
    for (const [candidate, a, b] of scenario.bestOf ?? []) {
      // A variant this scenario does not have (quick mode's stdio media has no adaptive one) means no such comparison.
      if (![candidate, a, b].every((id) => samples.has(id))) continue;
      const missing = [candidate, a, b].filter((id) => failed.has(id));
      if (missing.length > 0) notes.push(`${candidate} / ${bestOfId(a, b)} not compared: ${missing.join(' and ')} failed`);
      else comparisons.push(compareWithBest(candidate, samples.get(candidate)!, [a, samples.get(a)!], [b, samples.get(b)!]));
    }
    return {
      name: scenario.name,
      venue: scenario.venue,
      title: scenario.title,
      runtime,
      transport: scenario.transport,
      clients: scenario.clients,
      rounds: scenario.rounds,
      callsPerRound,
      warmupCalls,
      variants,
      comparisons,
      notes,
    };
  } catch (error) {
    // Something outside one variant went wrong: do not leave servers of unknown state in the pool.
    await Promise.all(sessions.map((s) => pool.drop(s.spec)));
    throw error;
  }
}

function labelOf(scenario: CallScenario, id: string): string {
  return scenario.variants.find((v) => v.id === id)?.label ?? id;
}

function summarizeVariant(variant: VariantSpec, rounds: RoundSample[]): VariantResult {
  const values: VariantResult['values'] = {};
  for (const [key, read] of ROUND_METRICS) {
    const series = rounds.map(read).filter((v): v is number => v !== undefined && Number.isFinite(v));
    if (series.length > 0) values[key] = median(series);
  }
  // Latency percentiles over every call of every round, not medians of per-round percentiles.
  const all = rounds.flatMap((r) => r.latencies);
  if (all.length === 0) return { id: variant.id, label: variant.label, values };
  values.p50 = percentile(all, 50);
  values.p95 = percentile(all, 95);
  values.p99 = percentile(all, 99);
  return { id: variant.id, label: variant.label, values };
}

/** The id of the better of two variants, as a comparison's baseline: `min(json,msgpack)`. */
export function bestOfId(a: string, b: string): string {
  return `min(${a},${b})`;
}

/**
 * The candidate against the better of two variants, metric by metric: the one whose median over the rounds
 * is the lower cost (or the higher calls/s), compared round by round as any baseline is. Not the lower of
 * the two in each round: on a noisy machine the minimum of two noisy values is biased low, and a candidate
 * that equals either wire would seem to lose.
 */
export function compareWithBest(candidate: string, rounds: readonly RoundSample[], [a, aRounds]: [string, readonly RoundSample[]], [b, bRounds]: [string, readonly RoundSample[]]): ComparisonResult {
  const result: ComparisonResult = { candidate, baseline: bestOfId(a, b), metrics: {} };
  for (const [key, read] of ROUND_METRICS) {
    const typical = (series: readonly RoundSample[]) => median(series.map(read).filter((v): v is number => v !== undefined && Number.isFinite(v)));
    const [ma, mb] = [typical(aRounds), typical(bRounds)];
    if (!Number.isFinite(ma) || !Number.isFinite(mb)) continue;
    const aIsBetter = METRICS[key].lowerIsBetter ? ma <= mb : ma >= mb;
    const entry = compareRounds(candidate, aIsBetter ? a : b, rounds, aIsBetter ? aRounds : bRounds, [[key, read]]).metrics[key];
    if (entry) result.metrics[key] = entry;
  }
  return result;
}

/** Per-round ratios candidate / baseline for each metric, summarised and classified. */
export function compareRounds<T>(
  candidate: string,
  baseline: string,
  candidateRounds: readonly T[],
  baselineRounds: readonly T[],
  metrics: ReadonlyArray<[MetricKey, (sample: T) => number | undefined]>,
): ComparisonResult {
  const result: ComparisonResult = { candidate, baseline, metrics: {} };
  for (const [key, read] of metrics) {
    const ratios: number[] = [];
    for (let i = 0; i < Math.min(candidateRounds.length, baselineRounds.length); i++) {
      const c = read(candidateRounds[i]!);
      const b = read(baselineRounds[i]!);
      if (c !== undefined && b !== undefined && b > 0) ratios.push(c / b);
    }
    const ratio = summarizeRatios(ratios);
    if (ratio) result.metrics[key] = { ratio, verdict: classify(ratio, METRICS[key].lowerIsBetter) };
  }
  return result;
}
