// The short report every run prints first: what ran, the targets, one headline ratio row per scenario, and
// anything that failed. It fits SUMMARY_WIDTH columns; the full tables are in --details, --json and --report.
import type { BenchResult, ComparisonResult, MetricKey, ScenarioResult, TargetResult } from '../results.js';
import { METRICS } from '../results.js';
import { formatBytes, VERDICT_MARK, wrapWords } from './format.js';
import { textTable } from './table.js';

export const SUMMARY_WIDTH = 100;

const CALL_COLUMNS: Array<[MetricKey, string]> = [
  ['cpu', 'server CPU'],
  ['peakRss', 'peak RSS'],
  ['wire', 'wire bytes'],
  ['p50', 'p50'],
];
const CODEC_COLUMNS: Array<[MetricKey, string]> = [
  ['codecTime', 'encode+decode'],
  ['encodedBytes', 'encoded bytes'],
];
const SHORT_METRIC: Partial<Record<MetricKey, string>> = { cpu: 'server CPU', peakRss: 'peak RSS', wire: 'wire bytes', p50: 'client p50' };

export function renderSummary(result: BenchResult): string {
  const runtimes = [...new Set(result.scenarios.map((s) => s.runtime))];
  const sections = [overview(result), targetSection(result.targets)];
  for (const runtime of runtimes) {
    const scenarios = result.scenarios.filter((s) => s.runtime === runtime);
    const suffix = runtimes.length > 1 ? ` (${runtime})` : '';
    const calls = scenarios.filter((s) => s.venue !== 'codec');
    const codec = scenarios.filter((s) => s.venue === 'codec');
    if (calls.length > 0) sections.push(`HEADLINE RATIOS${suffix}: ours / baseline, median over rounds\n` + headlineTable(calls, CALL_COLUMNS));
    if (codec.length > 0) sections.push(`CODEC ALONE${suffix}: ours / JSON, median over rounds\n` + headlineTable(codec, CODEC_COLUMNS));
  }
  const problems = [
    ...result.scenarios.flatMap((s) => s.notes.map((note) => `${s.name}${runtimes.length > 1 ? ` [${s.runtime}]` : ''}: ${note}`)),
    ...result.skipped,
  ];
  if (problems.length > 0) sections.push('FAILED, SKIPPED OR NOT AS LABELLED\n' + problems.map((p) => wrapWords(p, SUMMARY_WIDTH, '- ', '  ')).join('\n'));
  sections.push(
    wrapWords(
      `W wins, = ties (the rounds' range crosses 1.0 or is within ±${(result.noiseBand * 100).toFixed(0)}%), L loses; lower is better. ` +
        'Every value, ratio range and verdict: --details (or --json FILE, --report FILE).',
      SUMMARY_WIDTH,
    ),
  );
  return sections.join('\n\n') + '\n';
}

function overview(result: BenchResult): string {
  const env = result.environment;
  const runtimes = Object.entries(env.runtimes).map(([k, v]) => `${k} ${v}`).join(', ');
  return wrapWords(
    `mcp-msgpack-bench ${env.packages['mcp-msgpack-bench'] ?? ''}, ${result.mode} mode, ${(result.durationMs / 1000).toFixed(1)} s: ` +
      `${runtimes}; ${env.cpu}, ${env.cores} cores, ${formatBytes(env.memoryBytes)}`,
    SUMMARY_WIDTH,
  );
}

function targetSection(targets: TargetResult[]): string {
  const count = (status: TargetResult['status']) => targets.filter((t) => t.status === status).length;
  const title = `TARGETS: ${count('met')} met, ${count('missed')} missed, ${count('not measured')} not measured`;
  const ratios = targets.filter((t) => t.scenario !== undefined);
  const rows = ratios.map((t) => [
    statusWord(t),
    t.scenario!,
    pairLabel(t.candidate ?? '', t.baseline ?? ''),
    SHORT_METRIC[t.metric!] ?? METRICS[t.metric!].label,
    t.measured === undefined ? '-' : `${t.measured.toFixed(2)}x`,
    `<= ${t.threshold}x`,
  ]);
  const others = targets.filter((t) => t.scenario === undefined).map((t) => wrapWords(`${statusWord(t)}  ${t.description}${t.note ? `: ${t.note}` : ''}`, SUMMARY_WIDTH, '', '         '));
  const notMeasured = ratios.filter((t) => t.status === 'not measured').map((t) => wrapWords(`${t.scenario}: ${t.note}`, SUMMARY_WIDTH, '  not measured: ', '    '));
  return [title, ...others, textTable(['', 'scenario (Node)', 'ours / baseline', 'metric', 'ratio', 'target'], rows, 4), ...new Set(notMeasured)].join('\n');
}

function statusWord(t: TargetResult): string {
  return t.status === 'met' ? 'MET' : t.status === 'missed' ? 'MISSED' : 'NOT RUN';
}

/** One row per scenario: its first comparison (ours against our own JSON, or against the codec baseline). */
function headlineTable(scenarios: ScenarioResult[], columns: Array<[MetricKey, string]>): string {
  const rows: string[][] = [];
  for (const s of scenarios) {
    const c = headlineComparison(s);
    if (!c) continue;
    rows.push([s.name, pairLabel(c.candidate, c.baseline), ...columns.map(([k]) => mark(c, k))]);
  }
  return textTable(['scenario', 'ours / baseline', ...columns.map(([, label]) => label)], rows, 2);
}

/** `candidate / baseline`, with a suffix both share said once: `stateless / session (msgpack)`. */
export function pairLabel(candidate: string, baseline: string): string {
  const dash = candidate.lastIndexOf('-');
  const suffix = dash > 0 ? candidate.slice(dash) : '';
  if (suffix && baseline.endsWith(suffix) && baseline.length > suffix.length) {
    return `${candidate.slice(0, dash)} / ${baseline.slice(0, -suffix.length)} (${suffix.slice(1)})`;
  }
  return `${candidate} / ${baseline}`;
}

function headlineComparison(s: ScenarioResult): ComparisonResult | undefined {
  return s.comparisons.find((c) => c.baseline === 'json') ?? s.comparisons[0];
}

function mark(c: ComparisonResult, key: MetricKey): string {
  const m = c.metrics[key];
  if (!m) return '-';
  const median = m.ratio.median;
  return `${median >= 10 ? median.toFixed(1) : median.toFixed(2)}x ${VERDICT_MARK[m.verdict]}`;
}
