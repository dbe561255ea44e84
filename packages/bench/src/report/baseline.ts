// The report of an A/B run (--baseline DIR): per scenario and variant, this build's server / the baseline's,
// median over the rounds (min-max) and the verdict, on the same rules as every other comparison.
import type { BenchResult, MetricKey } from '../results.js';
import { METRICS } from '../results.js';
import { textTable } from './columns.js';
import { formatRatio, formatValue, VERDICT_MARK } from './format.js';

const AB_METRICS: MetricKey[] = ['cpu', 'peakRss', 'wire', 'p50', 'throughput'];

export function renderBaseline(result: BenchResult): string {
  const rows: string[][] = [];
  for (const s of result.scenarios) {
    for (const c of s.comparisons) {
      const cpu = (id: string) => formatValue('cpu', s.variants.find((v) => v.id === id)?.values.cpu);
      rows.push([
        `${s.name} [${s.runtime}]`,
        c.candidate,
        `${cpu(c.candidate)} / ${cpu(c.baseline)}`,
        ...AB_METRICS.map((k) => {
          const m = c.metrics[k];
          return m ? `${formatRatio(m.ratio)} ${VERDICT_MARK[m.verdict]}` : '-';
        }),
      ]);
    }
  }
  const notes = result.scenarios.flatMap((s) => s.notes.map((n) => `- ${s.name} [${s.runtime}]: ${n}`));
  const lines = [
    `A/B against the baseline build ${result.baseline}: this build's server / the baseline's, same client,`,
    `rounds alternating both; median over rounds (min-max); W this build wins, = tie (range crosses 1.0 or`,
    `within ±${(result.noiseBand * 100).toFixed(0)}%), L this build loses. Lower is better except calls/s.`,
    '',
    rows.length > 0 ? textTable(['scenario', 'variant', 'CPU/call this / baseline', ...AB_METRICS.map((k) => METRICS[k].label)], rows) : 'nothing was compared',
  ];
  if (notes.length > 0) lines.push('', 'NOTES', ...notes);
  if (result.skipped.length > 0) lines.push('', 'SKIPPED OR FAILED', ...result.skipped.map((s) => `- ${s}`));
  return lines.join('\n') + '\n';
}
