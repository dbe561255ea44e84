/** Small, dependency-free statistics used by every venue: percentiles, ratio summaries, verdicts. */

/** Linear-interpolated percentile (p in 0..100) of `values`; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 1) return sorted[0]!;
  const rank = (Math.min(100, Math.max(0, p)) / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const weight = rank - low;
  return sorted[low]! * (1 - weight) + sorted[high]! * weight;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export interface RatioSummary {
  median: number;
  min: number;
  max: number;
  /** How many rounds produced a finite ratio. */
  rounds: number;
  /**
   * The interval the verdict reads (medianInterval): the min–max of up to 6 rounds; with more rounds (quick
   * mode's extra rounds for the stock client), the narrower interval that still holds the median as often.
   * Left out: min–max.
   */
  low?: number;
  high?: number;
}

/** How often min–max of 4 rounds holds the true median (1 - 2 / 2^4): what every interval here keeps. */
export const INTERVAL_COVERAGE = 0.875;

/**
 * A distribution-free confidence interval for the median of `sorted` values: the k-th smallest and k-th
 * largest, with the largest k whose coverage (the chance that the true median lies between them, from the
 * binomial distribution of how many rounds fall below it) is at least INTERVAL_COVERAGE. Up to 6 rounds
 * that is min–max (k = 1), so the rule "every round on one side" is unchanged there; with 12 rounds it is
 * the 3rd smallest to the 3rd largest.
 */
export function medianInterval(sorted: readonly number[]): { low: number; high: number } {
  const n = sorted.length;
  let k = 1;
  for (let next = 2; next <= Math.floor(n / 2); next++) {
    if (1 - 2 * binomialTail(n, next - 1) < INTERVAL_COVERAGE) break;
    k = next;
  }
  return { low: sorted[k - 1]!, high: sorted[n - k]! };
}

/** P(X <= j) for X ~ Binomial(n, 1/2). */
function binomialTail(n: number, j: number): number {
  let term = 1;
  let sum = 0;
  for (let i = 0; i <= j; i++) {
    sum += term;
    term = (term * (n - i)) / (i + 1);
  }
  return sum / 2 ** n;
}

/** The interval a verdict reads: `low`–`high` when set, else the rounds' min–max. */
export function intervalOf(summary: RatioSummary): { low: number; high: number } {
  return { low: summary.low ?? summary.min, high: summary.high ?? summary.max };
}

/** Summarises per-round ratios (candidate / baseline); non-finite ratios (a zero baseline) are dropped. */
export function summarizeRatios(ratios: readonly number[]): RatioSummary | undefined {
  const finite = ratios.filter((r) => Number.isFinite(r)).sort((a, b) => a - b);
  if (finite.length === 0) return undefined;
  const summary: RatioSummary = { median: median(finite), min: finite[0]!, max: finite.at(-1)!, rounds: finite.length };
  const { low, high } = medianInterval(finite);
  return low === summary.min && high === summary.max ? summary : { ...summary, low, high };
}

export type Verdict = 'wins' | 'ties' | 'loses';

/**
 * Ratios within this distance of 1.0 are called a tie even when every round agrees: differences of a
 * few percent are not worth a claim on a shared or virtual machine.
 */
export const NOISE_BAND = 0.05;

/**
 * Classifies a ratio summary. `lowerIsBetter` is true for costs (CPU, bytes, RSS, latency) and false for
 * throughput. A win or a loss needs every round (with more than 6 rounds: the median's interval) on the same
 * side of 1.0 and the median outside the noise band; anything else is a tie.
 */
export function classify(summary: RatioSummary, lowerIsBetter: boolean, band = NOISE_BAND): Verdict {
  const { median: m } = summary;
  const { low: min, high: max } = intervalOf(summary);
  if (Math.abs(m - 1) <= band) return 'ties';
  if (min <= 1 && max >= 1) return 'ties';
  const candidateLower = max < 1;
  return candidateLower === lowerIsBetter ? 'wins' : 'loses';
}
