import type { BenchResult, MetricKey, ScenarioResult } from '../results.js';
import { METRICS } from '../results.js';
import { formatBytes, formatRatio, formatValue, VERDICT_MARK } from './format.js';
import { statusWord } from './target-words.js';
import { renderSummary } from './summary.js';
import { textTable } from './columns.js';
import { renderBaseline } from './baseline.js';
import { codingShareLines } from './coding-share.js';
import { childExitSection } from './child-exits.js';

export const CALL_VALUE_METRICS: MetricKey[] = ['cpu', 'clientCpu', 'peakRss', 'steadyRss', 'sent', 'received', 'p50', 'p95', 'p99', 'throughput'];
export const CALL_RATIO_METRICS: MetricKey[] = ['cpu', 'clientCpu', 'peakRss', 'steadyRss', 'wire', 'p50', 'p99', 'throughput'];
export const CODEC_VALUE_METRICS: MetricKey[] = ['codecTime', 'encodeTime', 'decodeTime', 'encodedBytes'];
export const CODEC_RATIO_METRICS: MetricKey[] = ['codecTime', 'encodeTime', 'decodeTime', 'encodedBytes'];

export function header(result: BenchResult): string {
  const env = result.environment;
  return [
    `mcp-msgpack-bench ${env.packages['mcp-msgpack-bench'] ?? ''} — ${result.mode} mode — ${result.startedAt}`,
    `command:  ${result.command}`,
    `machine:  ${env.cpu}, ${env.cores} cores, ${formatBytes(env.memoryBytes)} memory`,
    `os:       ${env.os}`,
    `runtimes: ${Object.entries(env.runtimes)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `packages: ${Object.entries(env.packages)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    result.command.includes('--sdk-as-published')
      ? `SDK HTTP: as published, with its JSON-response leak (typescript-sdk#2559): its CPU/call is flattered by deferred GC, its RSS grows per call`
      : `SDK HTTP: its JSON-response leak (typescript-sdk#2559) released after each reply, as the SDK's fix does (--sdk-as-published to keep it)`,
  ].join('\n');
}

function scenarioLabel(s: ScenarioResult): string {
  return `${s.name} [${s.runtime}]${s.untrusted ? ' (NOT TRUSTWORTHY: a child died)' : ''}`;
}

/** Whether a warm-up counted in calls reached the steady state (runner/call-warmup.ts). */
function warmupState(s: ScenarioResult): string {
  if (!s.warmup) return '';
  return s.warmup.steady ? '; steady state: warmed by calls until the server CPU per call stopped falling' : '; NOT steady state: the servers are still JIT-warming (--full warms them to steady state)';
}

/** Each variant's server CPU per call over the warm-up in calls, window by window, in µs. */
function warmupWindows(s: ScenarioResult): string {
  if (!s.warmup) return '';
  const lines = Object.entries(s.warmup.cpuMsPerCall)
    .filter(([, windows]) => windows.length > 0)
    .map(([id, windows]) => `\n  warm-up server CPU per call (µs), ${s.warmup!.window}-call windows, ${id}: ${windows.map((ms) => Math.round(ms * 1000)).join(' ')}`);
  return lines.join('');
}

/** Every variant's measured values, one block per scenario. */
export function valuesTable(scenarios: ScenarioResult[]): string {
  const blocks: string[] = [];
  for (const s of scenarios) {
    const metrics = s.venue === 'codec' ? CODEC_VALUE_METRICS : CALL_VALUE_METRICS;
    const how =
      s.venue === 'codec'
        ? `${s.rounds} rounds, tinybench, per operation`
        : `${s.rounds} rounds x ${s.callsPerRound} calls, ${s.clients} client${s.clients > 1 ? 's' : ''}, after ${s.warmupCalls} warm-up calls`;
    const rows = s.variants.map((v) => [v.failed ? `${v.label} (FAILED)` : v.label, ...metrics.map((k) => formatValue(k, v.values[k]))]);
    const notes = s.notes.map((n) => `\n  note: ${n}`).join('');
    blocks.push(`${scenarioLabel(s)}: ${s.title} (${how}${warmupState(s)})\n` + textTable(['variant', ...metrics.map((k) => METRICS[k].label)], rows) + warmupWindows(s) + codingShareLines(s) + notes);
  }
  return blocks.join('\n\n');
}

/** The ratio table: candidate / baseline per metric, median (min-max over rounds) and verdict mark. */
export function ratioTable(scenarios: ScenarioResult[]): string {
  const parts: string[] = [];
  const codec = scenarios.filter((s) => s.venue === 'codec');
  const calls = scenarios.filter((s) => s.venue !== 'codec');
  if (codec.length > 0) parts.push(ratioBlock(codec, CODEC_RATIO_METRICS));
  if (calls.length > 0) parts.push(ratioBlock(calls, CALL_RATIO_METRICS));
  return parts.join('\n\n');
}

function ratioBlock(scenarios: ScenarioResult[], metrics: MetricKey[]): string {
  const rows: string[][] = [];
  for (const s of scenarios) {
    for (const c of s.comparisons) {
      rows.push([
        scenarioLabel(s),
        `${c.candidate} / ${c.baseline}`,
        ...metrics.map((k) => {
          const m = c.metrics[k];
          return m ? `${formatRatio(m.ratio)} ${VERDICT_MARK[m.verdict]}` : '-';
        }),
      ]);
    }
  }
  return textTable(['scenario', 'candidate / baseline', ...metrics.map((k) => METRICS[k].label)], rows);
}

/** One sentence per comparison: which metrics win, tie, lose. */
export function verdictLines(scenarios: ScenarioResult[]): string {
  const lines: string[] = [];
  for (const s of scenarios) {
    const metrics = s.venue === 'codec' ? CODEC_RATIO_METRICS : CALL_RATIO_METRICS;
    for (const c of s.comparisons) {
      const labelOf = (id: string) => s.variants.find((v) => v.id === id)?.label ?? id;
      const groups = { wins: [] as string[], ties: [] as string[], loses: [] as string[] };
      for (const k of metrics) {
        const m = c.metrics[k];
        if (m) groups[m.verdict].push(m.verdict === 'ties' ? METRICS[k].label : `${METRICS[k].label} ${formatRatio(m.ratio)}`);
      }
      const said = (['wins', 'ties', 'loses'] as const).filter((v) => groups[v].length > 0).map((v) => `${v} on ${groups[v].join(', ')}`);
      lines.push(`${scenarioLabel(s)}: ${labelOf(c.candidate)} vs ${labelOf(c.baseline)}: ${said.join('; ')}`);
    }
    for (const note of s.notes) lines.push(`${scenarioLabel(s)}: ${note}`);
  }
  return lines.join('\n');
}

export function targetLines(result: BenchResult): string {
  const width = Math.max(...result.targets.map((t) => statusWord(t).length));
  return result.targets.map((t) => `${statusWord(t).padEnd(width)}  ${t.description}${t.note ? ` — ${t.note}` : ''}`).join('\n');
}

/**
 * The text report printed at the end of a run: the summary (100 columns), then with `details` every table
 * (values, ratios with their ranges, verdicts, the targets' full wording).
 */
export function renderText(result: BenchResult, { details = false }: { details?: boolean } = {}): string {
  if (result.baseline !== undefined) {
    const died = childExitSection(result);
    const text = (died ? `${died}\n\n` : '') + renderBaseline(result);
    return details ? text + '\nMEASURED VALUES\n\n' + valuesTable(result.scenarios) + '\n' : text;
  }
  if (!details) return renderSummary(result);
  const sections = [
    header(result),
    'MEASURED VALUES (medians over rounds; latency percentiles over every call)\n\n' + valuesTable(result.scenarios),
    `RATIOS candidate / baseline: median over rounds (min-max); W wins, = tie (range crosses 1.0 or within ±${(result.noiseBand * 100).toFixed(0)}%), L loses. Lower is better except calls/s.\n\n` +
      ratioTable(result.scenarios),
    'VERDICTS\n' + verdictLines(result.scenarios),
    'TARGETS\n' + targetLines(result),
  ];
  if (result.skipped.length > 0) sections.push('SKIPPED OR FAILED\n' + result.skipped.map((s) => `- ${s}`).join('\n'));
  return renderSummary(result) + '\nDETAILS\n\n' + sections.join('\n\n') + '\n';
}
