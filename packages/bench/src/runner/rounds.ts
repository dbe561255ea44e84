import { performance } from 'node:perf_hooks';
import type { MetricKey, ScenarioResult, VariantResult, ComparisonResult } from '../results.js';
import { METRICS } from '../results.js';
import { classify, median, percentile, summarizeRatios } from '../stats.js';
import type { Progress } from '../report/progress.js';
import { measureRound, type CallFunction, type RoundSample } from './measure.js';
import type { SessionPool } from './pool.js';
import type { Session } from './session.js';
import type { VariantSpec } from './variant.js';
import { extraRoundCalls, needsExtraRounds, nextBatch, undecided, type DeciderSettings } from './decider.js';
import { warmInTurns, type CallWarmup, type WarmupTurn } from './call-warmup.js';

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
  /** A warm-up counted in calls after the one in ms (call-warmup.ts): the compression venue's. */
  callWarmup?: CallWarmup;
  minCalls: number;
  maxCalls: number;
  /**
   * Calls per round are a whole multiple of this: a scenario whose calls cycle through a list (a recorded
   * session's replies, which differ 100-fold in size) then gives every round each item equally often. Cut
   * off mid-list, a round over-weighted the first replies, and the filesystem session's bytes per call moved
   * by up to 0.04x of JSON + gzip 6's between runs with nothing changed.
   */
  callsMultiple?: number;
  mediaDir?: string;
}

/** `calls` to the nearest whole multiple of the scenario's `callsMultiple` (at least one multiple). */
function wholeMultiple(calls: number, multiple = 1): number {
  return Math.max(multiple, Math.round(calls / multiple) * multiple);
}

/** Warm-up samples (rounds of a few calls) before a warm call's time, the median of the later half, is read. */
const WARMUP_SAMPLES = 6;

/** Servers started at once for a scenario. */
const START_CONCURRENCY = 3;

/** `work` on every item, at most `limit` at a time; the results in the items' order. */
export async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
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
export async function runCallScenario(scenario: CallScenario, runtime: string, pool: SessionPool, progress: Progress, decider?: DeciderSettings): Promise<ScenarioResult> {
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
    for (const variant of scenario.variants) if (pool.has(variant)) reused.add(variant.id);
    const starting = scenario.variants.filter((v) => !reused.has(v.id));
    if (starting.length > 0) progress.update(`${scenario.name}: starting ${starting.length} server${starting.length > 1 ? 's' : ''} (${starting.map((v) => v.id).join(', ')})`);
    // A few at a time: a server's start is mostly loading modules and waiting for its clients' handshakes,
    // which overlap; the rounds begin only once every one is up, so none is measured while another starts.
    const started = await mapConcurrently(scenario.variants, START_CONCURRENCY, async (variant) => {
      try {
        return await pool.get(variant, scenario.name);
      } catch (error) {
        await fail(undefined, variant.id, error);
        return undefined;
      }
    });
    for (const session of started) if (session) sessions.push(session);
    const callOf = (session: Session) => scenario.callFor?.(session.spec) ?? scenario.call;
    // Warm-up: at least warmupMs of calls per variant (JIT, caches, connection pools), which also tells
    // how long a call takes, so every variant can get the same number of calls per round.
    let slowestMsPerCall = 0;
    let warmupCalls = 0;
    const turns: WarmupTurn[] = [];
    for (const session of [...sessions]) {
      progress.update(`${scenario.name}: warm-up ${session.spec.label}`);
      try {
        const started = performance.now();
        let calls = 0;
        const perCall: number[] = [];
        const warmupMs = reused.has(session.spec.id) ? Math.min(scenario.warmupMs, scenario.reusedWarmupMs ?? Infinity) : scenario.warmupMs;
        // At least WARMUP_SAMPLES samples (unless that takes 2x the warm-up): on a loaded machine one of two
        // samples taken while the process waited for a core made a 0.6 ms call look like 50 ms, and sized
        // rounds of 3 calls that no verdict could be read from.
        for (;;) {
          const sample = await measureRound(session, Math.max(2, scenario.clients), callOf(session));
          calls += sample.calls;
          perCall.push(sample.wallMs / sample.calls);
          const elapsed = performance.now() - started;
          if ((elapsed >= warmupMs && perCall.length >= WARMUP_SAMPLES) || elapsed >= 2 * warmupMs) break;
        }
        // The later half of the warm-up says what a warm call costs.
        const warmMsPerCall = median(perCall.slice(Math.floor(perCall.length / 2)));
        const wantedCalls = !scenario.callWarmup ? 0 : reused.has(session.spec.id) ? scenario.callWarmup.reusedCalls : scenario.callWarmup.calls;
        if (wantedCalls > 0) turns.push({ session, call: callOf(session), remaining: wantedCalls, cpuMsPerCall: [] });
        else slowestMsPerCall = Math.max(slowestMsPerCall, warmMsPerCall);
        warmupCalls = Math.max(warmupCalls, calls + wantedCalls);
      } catch (error) {
        await fail(session, session.spec.id, error);
      }
    }
    // Then the warm-up in calls (the compression venue's), the sessions in turns; its last windows size the rounds.
    const warmupWindows: Record<string, number[]> = {};
    if (scenario.callWarmup && turns.length > 0) {
      const window = wholeMultiple(scenario.callWarmup.window, scenario.callsMultiple);
      await warmInTurns(
        turns,
        window,
        (turn, error) => fail(turn.session, turn.session.spec.id, error),
        (turn) => progress.update(`${scenario.name}: warm-up ${turn.session.spec.label}, ${turn.remaining} calls to go`),
      );
      for (const turn of turns) {
        if (failed.has(turn.session.spec.id)) continue;
        warmupWindows[turn.session.spec.id] = turn.cpuMsPerCall;
        slowestMsPerCall = Math.max(slowestMsPerCall, turn.lastMsPerCall ?? 0);
      }
    }
    const wanted = Math.round(scenario.roundMs / Math.max(slowestMsPerCall, 0.001));
    const callsPerRound = wholeMultiple(Math.min(scenario.maxCalls, Math.max(scenario.minCalls, scenario.clients, wanted)), scenario.callsMultiple);
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
      if (missing.length > 0) {
        notes.push(`${candidate} / ${baseline} not compared: ${missing.join(' and ')} failed`);
        continue;
      }
      const comparison = compareRounds(candidate, baseline, samples.get(candidate)!, samples.get(baseline)!, ROUND_METRICS);
      if (decider?.baseline !== baseline || !needsExtraRounds(comparison, scenario.rounds, callsPerRound, decider)) {
        comparisons.push(comparison);
        continue;
      }
      const pair = [candidate, baseline].map((id) => sessions.find((session) => session.spec.id === id)!);
      const decided = await extraRounds(scenario, pair as [Session, Session], callsPerRound, samples, decider, progress, callOf);
      comparisons.push(decided.comparison ?? comparison);
      if (decided.note) notes.push(decided.note);
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
      ...(scenario.callWarmup ? { warmup: { steady: scenario.callWarmup.steady, window: wholeMultiple(scenario.callWarmup.window, scenario.callsMultiple), cpuMsPerCall: warmupWindows } } : {}),
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

/**
 * Quick mode's extra rounds for one comparison whose target the scenario's rounds left open (decider.ts):
 * the two variants alone, alternating, rounds of at least the judge's floor of calls. The scenario's own
 * rounds count too when they were as long; otherwise the comparison rests on the extra rounds alone.
 * Returns the comparison on those rounds (undefined when none ran) and a note on what was done.
 */
async function extraRounds(
  scenario: CallScenario,
  [candidate, baseline]: [Session, Session],
  callsPerRound: number,
  samples: ReadonlyMap<string, RoundSample[]>,
  settings: DeciderSettings,
  progress: Progress,
  callOf: (session: Session) => CallFunction,
): Promise<{ comparison?: ComparisonResult; note?: string }> {
  const [c, b] = [candidate.spec.id, baseline.spec.id];
  const counted = callsPerRound >= settings.minCalls;
  const rounds: [RoundSample[], RoundSample[]] = [counted ? [...samples.get(c)!] : [], counted ? [...samples.get(b)!] : []];
  // What a call costs each of the two in wall time, from the scenario's rounds: it sizes the extra rounds.
  const msPerCall = (id: string) => median(samples.get(id)!.map((r) => r.wallMs / r.calls));
  const [msC, msB] = [msPerCall(c), msPerCall(b)];
  const calls = wholeMultiple(extraRoundCalls(Math.max(msC, msB), scenario.clients, settings), scenario.callsMultiple);
  let fewest = counted ? callsPerRound : calls;
  let comparison: ComparisonResult | undefined;
  let added = 0;
  let why = 'the target is decided';
  for (;;) {
    const batch = nextBatch(rounds[0].length, settings);
    if (batch === 0) {
      why = `the comparison has ${settings.maxRounds} rounds`;
      break;
    }
    const estimate = batch * calls * (msC + msB);
    if (!settings.budget.take(estimate)) {
      why = "quick mode's time for extra rounds was spent";
      break;
    }
    progress.extend(batch);
    const started = performance.now();
    try {
      for (let i = 0; i < batch; i++) {
        const order: Array<[Session, RoundSample[]]> =
          rounds[0].length % 2 === 0
            ? [
                [candidate, rounds[0]],
                [baseline, rounds[1]],
              ]
            : [
                [baseline, rounds[1]],
                [candidate, rounds[0]],
              ];
        for (const [session, into] of order) {
          progress.update(`${scenario.name}: extra round ${added + i + 1} of ${c} / ${b} (${calls} calls) ${session.spec.label}`);
          into.push(await measureRound(session, calls, callOf(session)));
        }
        progress.tick();
      }
    } catch (error) {
      // A call that fails here leaves the scenario's own comparison standing.
      return { note: `${c} / ${b}: extra rounds stopped: ${((error as Error)?.message ?? String(error)).split('\n')[0]!.slice(0, 200)}` };
    } finally {
      settings.budget.settle(estimate, performance.now() - started);
    }
    added += batch;
    fewest = Math.min(fewest, calls);
    comparison = compareRounds(c, b, rounds[0], rounds[1], ROUND_METRICS);
    if (!undecided(comparison, rounds[0].length, fewest, settings)) break;
  }
  if (!comparison) return { note: `${c} / ${b}: its target is open after the scenario's rounds, and no extra rounds ran: ${why}` };
  const note = `${added} extra rounds of ${calls} calls, the two alone${counted ? ", after the scenario's" : ''} (${why})`;
  return { comparison: { ...comparison, rounds: rounds[0].length, callsPerRound: fewest, note } };
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
