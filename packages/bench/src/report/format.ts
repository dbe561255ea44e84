import { METRICS, type MetricKey } from '../results.js';
import { intervalOf, type RatioSummary, type Verdict } from '../stats.js';

export function formatValue(key: MetricKey, value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '-';
  const unit = METRICS[key].unit;
  if (unit === 'bytes') return formatBytes(value);
  if (unit === 'ms') return value >= 100 ? value.toFixed(0) + ' ms' : value >= 1 ? value.toFixed(2) + ' ms' : (value * 1000).toFixed(1) + ' µs';
  return value >= 100 ? value.toFixed(0) : value.toFixed(1);
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return (bytes / (1024 * 1024 * 1024)).toFixed(1) + ' GiB';
  if (bytes >= 1024 * 1024) return (bytes / (1024 * 1024)).toFixed(1) + ' MiB';
  if (bytes >= 1024) return (bytes / 1024).toFixed(1) + ' KiB';
  return bytes.toFixed(0) + ' B';
}

/** The median and the interval its verdict reads: the rounds' min-max, or over more than 6 rounds the median's interval. */
export function formatRatio(ratio: RatioSummary): string {
  const digits = (n: number) => (n >= 10 ? n.toFixed(1) : n.toFixed(2));
  const { low, high } = intervalOf(ratio);
  return low === high || ratio.rounds === 1 ? `${digits(ratio.median)}x` : `${digits(ratio.median)}x (${digits(low)}-${digits(high)})`;
}

export const VERDICT_MARK: Record<Verdict, string> = { wins: 'W', ties: '=', loses: 'L' };

/** Text wrapped at spaces into lines of at most `width` columns (a longer word gets a line of its own). */
export function wrapWords(text: string, width: number, firstIndent = '', nextIndent = firstIndent): string {
  const lines: string[] = [];
  let line = firstIndent;
  let empty = true;
  for (const word of text.split(' ').filter(Boolean)) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = nextIndent;
      empty = true;
    }
    line += (empty ? '' : ' ') + word;
    empty = false;
  }
  lines.push(line);
  return lines.join('\n');
}
