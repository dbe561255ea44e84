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
}

/** Summarises per-round ratios (candidate / baseline); non-finite ratios (a zero baseline) are dropped. */
export function summarizeRatios(ratios: readonly number[]): RatioSummary | undefined {
  const finite = ratios.filter((r) => Number.isFinite(r));
  if (finite.length === 0) return undefined;
  return { median: median(finite), min: Math.min(...finite), max: Math.max(...finite), rounds: finite.length };
}

export type Verdict = 'wins' | 'ties' | 'loses';

/**
 * Ratios within this distance of 1.0 are called a tie even when every round agrees: differences of a
 * few percent are not worth a claim on a shared or virtual machine.
 */
export const NOISE_BAND = 0.05;

/**
 * Classifies a ratio summary. `lowerIsBetter` is true for costs (CPU, bytes, RSS, latency) and false for
 * throughput. A win or a loss needs every round on the same side of 1.0 and the median outside the noise
 * band; anything else is a tie.
 */
export function classify(summary: RatioSummary, lowerIsBetter: boolean, band = NOISE_BAND): Verdict {
  const { median: m, min, max } = summary;
  if (Math.abs(m - 1) <= band) return 'ties';
  if (min <= 1 && max >= 1) return 'ties';
  const candidateLower = max < 1;
  return candidateLower === lowerIsBetter ? 'wins' : 'loses';
}
