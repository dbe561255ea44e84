// How a target on a ratio is judged, and what the verdict says besides met or missed: a tie is inside the
// noise and leans one way or the other; a quick run too short to tell says so instead of "missed".
import { METRICS, type MetricKey, type TargetResult } from './results.js';
import { intervalOf, NOISE_BAND, type RatioSummary, type Verdict } from './stats.js';

/**
 * Calls a round needs before a timed or memory figure can be judged: full mode's floor, set because rounds of
 * 4 slow calls (5 MiB media) gave ratios that moved 2x between runs. Quick mode's rounds of slow calls are
 * shorter (3 calls and up).
 */
export const MIN_CALLS_TO_JUDGE = 12;
/** How far short rounds move between runs (the 2x above): with fewer calls, only a verdict this clear stands. */
export const SHORT_ROUND_SPREAD = 2;
/** Counted, not timed: the same on every round whatever the machine does, so judged at any round length. */
const COUNTED: ReadonlySet<MetricKey> = new Set(['wire', 'sent', 'received', 'encodedBytes']);

export type Lean = NonNullable<TargetResult['lean']>;

/** Which side of 1.0 a tie's median fell on: 'better' or 'worse' for the candidate, 'even' at 1.0. */
export function leanOf(median: number, metric: MetricKey): Lean {
  if (median === 1) return 'even';
  return median < 1 === METRICS[metric].lowerIsBetter ? 'better' : 'worse';
}

/** Why a ratio is a tie: its rounds fall on both sides of 1.0, or its median is within the noise band. */
export function tieReason(ratio: RatioSummary, band = NOISE_BAND): string {
  const { low, high } = intervalOf(ratio);
  if (low <= 1 && high >= 1) return ratio.low === undefined ? 'range crosses 1.0' : `the median's interval over ${ratio.rounds} rounds crosses 1.0`;
  return `within ±${(band * 100).toFixed(0)}% of 1.0`;
}

export interface RatioToJudge {
  mode: 'quick' | 'full';
  /** The scenario's round count and calls per round. */
  rounds: number;
  callsPerRound: number;
  metric: MetricKey;
  ratio: RatioSummary;
  verdict: Verdict;
  threshold: number;
  rule: 'bound' | 'parity';
}

export interface Judgement {
  status: TargetResult['status'];
  lean?: Lean;
  /** Why a tie is a tie, or why the run cannot judge. */
  reason?: string;
}

/**
 * A target's verdict on one ratio. 'bound': met when the median is under the threshold. 'parity' ("no more
 * than the baseline", with an allowance above 1): met on a win or a median within the allowance, missed on a
 * loss, a tie otherwise. In quick mode a timed or memory figure is not judged from rounds too short to
 * trust (fewer than MIN_CALLS_TO_JUDGE calls) unless every round is SHORT_ROUND_SPREAD beyond the threshold,
 * nor a bound whose rounds fall on both sides of it: "cannot judge", with the reason, instead.
 */
export function judgeRatio(input: RatioToJudge): Judgement {
  const { ratio, threshold, metric } = input;
  const { low, high } = intervalOf(ratio);
  const status = input.rule === 'parity' ? parityStatus(ratio.median, threshold, input.verdict) : ratio.median <= threshold ? 'met' : 'missed';
  if (input.mode === 'quick' && !COUNTED.has(metric)) {
    if (input.callsPerRound < MIN_CALLS_TO_JUDGE) {
      const clear = high * SHORT_ROUND_SPREAD <= threshold || low >= threshold * SHORT_ROUND_SPREAD;
      if (!clear || status === 'tie')
        return {
          status: 'cannot judge',
          reason: `${input.rounds} rounds of ${input.callsPerRound} calls: too few to judge (--full runs at least ${MIN_CALLS_TO_JUDGE} a round)`,
        };
    } else if (input.rule === 'bound' && low <= threshold && high > threshold) {
      return { status: 'cannot judge', reason: `its ${input.rounds} rounds fall on both sides of the target: --full decides` };
    }
  }
  if (status === 'tie') return { status, lean: leanOf(ratio.median, metric), reason: tieReason(ratio) };
  return { status };
}

/**
 * "No worse than the baseline" under the tie rule. At 1: met on a win, tied on a tie, missed on a loss. With
 * an allowance (1.05): met when the median is within it, missed when the rounds say the candidate loses,
 * and a tie otherwise (a median past the allowance that the rounds cannot tell from 1.0).
 */
export function parityStatus(median: number, threshold: number, verdict: Verdict): 'met' | 'missed' | 'tie' {
  if (threshold > 1 && median <= threshold) return 'met';
  return ({ wins: 'met', ties: 'tie', loses: 'missed' } as const)[verdict];
}
