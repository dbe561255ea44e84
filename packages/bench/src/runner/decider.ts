// Quick mode's extra rounds for the stock-client comparison (issue 30): a quick run's rounds are short, and
// the comparison a user reads first came out CAN'T JUDGE (rounds of a few calls) or a TIE over 1.05x more
// often than not. Where the scenario's rounds leave its target undecided, the two variants run alone for a
// few more rounds, long enough to judge, alternating as every round does, until the target is decided, the
// comparison has maxRounds rounds, or the run's time for extra rounds is spent. These are the decisions;
// rounds.ts runs the rounds.
import { judgeRatio } from '../judge.js';
import type { ComparisonResult, MetricKey } from '../results.js';

/** The time a run may spend on extra rounds, shared by its scenarios in the order they run. */
export class TimeBudget {
  constructor(private remainingMs: number) {}

  get remaining(): number {
    return this.remainingMs;
  }

  /** Takes `ms` (an estimate) if that much is left. */
  take(ms: number): boolean {
    if (ms > this.remainingMs) return false;
    this.remainingMs -= ms;
    return true;
  }

  /** Settles an estimate taken with what the rounds really took. */
  settle(estimatedMs: number, actualMs: number): void {
    this.remainingMs += estimatedMs - actualMs;
  }
}

export interface DeciderSettings {
  /** The comparisons it decides: those against this baseline (the stock client). */
  baseline: string;
  /** The target on them: parity within this allowance, on this metric. */
  threshold: number;
  metric: MetricKey;
  /** Calls an extra round makes at least (the judge's floor, MIN_CALLS_TO_JUDGE), and about how long it lasts. */
  minCalls: number;
  roundMs: number;
  maxCalls: number;
  /** Rounds of the first batch when the scenario's rounds are too short to count (the verdict needs as many). */
  firstRounds: number;
  /** The most rounds a comparison may rest on. */
  maxRounds: number;
  budget: TimeBudget;
}

function statusOf(comparison: ComparisonResult, rounds: number, callsPerRound: number, settings: Pick<DeciderSettings, 'threshold' | 'metric'>): string | undefined {
  const entry = comparison.metrics[settings.metric];
  if (!entry) return undefined;
  return judgeRatio({ mode: 'quick', rounds, callsPerRound, metric: settings.metric, ratio: entry.ratio, verdict: entry.verdict, threshold: settings.threshold, rule: 'parity' }).status;
}

/** Whether the target on this comparison is still open: a tie, or rounds a quick run cannot judge. */
export function undecided(comparison: ComparisonResult, rounds: number, callsPerRound: number, settings: Pick<DeciderSettings, 'threshold' | 'metric'>): boolean {
  const status = statusOf(comparison, rounds, callsPerRound, settings);
  return status === 'tie' || status === 'cannot judge';
}

/**
 * Whether the scenario's rounds call for extra rounds: the target is open, or missed. A miss is confirmed by
 * rounds of the two alone: 4 rounds all over 1.0 happen by chance one time in 16 at a true 1.0x, and a quick
 * run has 17 such comparisons, so about one false "costs more" a run without it.
 */
export function needsExtraRounds(comparison: ComparisonResult, rounds: number, callsPerRound: number, settings: Pick<DeciderSettings, 'threshold' | 'metric'>): boolean {
  return undecided(comparison, rounds, callsPerRound, settings) || statusOf(comparison, rounds, callsPerRound, settings) === 'missed';
}

/** Calls per extra round: about roundMs of the slower variant's calls, at least minCalls (and the client count). */
export function extraRoundCalls(slowerMsPerCall: number, clients: number, settings: Pick<DeciderSettings, 'minCalls' | 'roundMs' | 'maxCalls'>): number {
  const wanted = Math.round(settings.roundMs / Math.max(slowerMsPerCall, 0.001));
  return Math.min(settings.maxCalls, Math.max(settings.minCalls, clients, wanted));
}

/**
 * How many rounds the next batch adds to a comparison that rests on `have` rounds: `firstRounds` from none
 * (the scenario's were too short to count), else two (one in each order), never past maxRounds; 0 when done.
 */
export function nextBatch(have: number, settings: Pick<DeciderSettings, 'firstRounds' | 'maxRounds'>): number {
  if (have >= settings.maxRounds) return 0;
  return Math.min(settings.maxRounds - have, have === 0 ? settings.firstRounds : 2);
}
