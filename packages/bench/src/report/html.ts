import type { BenchResult, ComparisonResult, MetricKey, ScenarioResult, TargetResult } from '../results.js';
import { METRICS } from '../results.js';
import { formatBytes, formatRatio, formatValue } from './format.js';
import { headline } from './summary.js';
import { statusWord, targetCounts } from './target-words.js';
import { stockRows, type StockRow } from './stock.js';
import { CALL_RATIO_METRICS, CALL_VALUE_METRICS, CODEC_RATIO_METRICS, CODEC_VALUE_METRICS } from './table.js';

/**
 * A self-contained HTML report. It opens with the headline the terminal opens with (the same words), then a
 * table of contents linking every section, then one section per scenario (a ratio chart per comparison in
 * inline SVG: median bar, min-max whisker, the 1.0 line and the noise band; and the measured values), what
 * was skipped, the run's details, and the targets last. No scripts, no external assets: it can be mailed or
 * attached to a CI run as one file.
 */
export function renderHtml(result: BenchResult): string {
  const env = result.environment;
  const several = new Set(result.scenarios.map((s) => s.runtime)).size > 1;
  const sections: string[] = [];
  sections.push(`<h1>mcp-msgpack-bench — ${escapeHtml(result.mode)} mode</h1>
<pre class="headline" id="headline">${escapeHtml(headline(result).join('\n\n'))}</pre>`);
  sections.push(
    tableOfContents(
      result,
      several,
      result.scenarios.some((s) => s.comparisons.some((c) => c.baseline === 'stock-client')),
    ),
  );
  sections.push(`<p id="reading">Each chart shows candidate / baseline per metric: the bar is the median ratio over rounds, the whisker
its min–max, the grey band ±${(result.noiseBand * 100).toFixed(0)}% around 1.0. Lower is better for costs,
higher for calls/s. <span class="wins">green: wins</span>, <span class="ties">grey: ties</span>,
<span class="loses">red: loses</span>.</p>`);
  const runtimes = [...new Set(result.scenarios.map((s) => s.runtime))];
  const stock = runtimes.map((runtime) => ({ runtime, rows: stockRows(result.scenarios, result.targets, runtime) })).filter((r) => r.rows.length > 0);
  if (stock.length > 0) sections.push(stockSection(stock, several));
  for (const scenario of result.scenarios) sections.push(scenarioSection(scenario, result.noiseBand));
  if (result.skipped.length > 0) sections.push('<h2 id="skipped">Skipped or failed</h2><ul>' + result.skipped.map((s) => `<li>${escapeHtml(s)}</li>`).join('') + '</ul>');
  sections.push(`<h2 id="run">The run</h2>
<table class="meta">
<tr><th>command</th><td><code>${escapeHtml(result.command)}</code></td></tr>
<tr><th>started</th><td>${escapeHtml(result.startedAt)} (${(result.durationMs / 1000).toFixed(1)} s)</td></tr>
<tr><th>machine</th><td>${escapeHtml(env.cpu)}, ${env.cores} cores, ${escapeHtml(formatBytes(env.memoryBytes))} memory</td></tr>
<tr><th>os</th><td>${escapeHtml(env.os)}</td></tr>
<tr><th>runtimes</th><td>${escapeHtml(
    Object.entries(env.runtimes)
      .map(([k, v]) => `${k} ${v}`)
      .join(', '),
  )}</td></tr>
<tr><th>packages</th><td>${escapeHtml(
    Object.entries(env.packages)
      .map(([k, v]) => `${k} ${v}`)
      .join(', '),
  )}</td></tr>
</table>`);
  sections.push(
    `<h2 id="targets">Targets: ${escapeHtml(targetCounts(result.targets))}</h2>\n<table class="values"><tr><th>verdict</th><th>target</th><th>measured</th></tr>` +
      result.targets
        .map((t) => `<tr><td class="${t.untrusted ? 'loses' : STATUS_CLASS[t.status]}">${escapeHtml(statusWord(t))}</td><td>${escapeHtml(t.description)}</td><td>${escapeHtml(t.note ?? '')}</td></tr>`)
        .join('\n') +
      '</table>',
  );

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mcp-msgpack-bench report</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0}td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}
td:first-child,th:first-child,.meta td,.meta th{text-align:left}code{font-size:90%}
.wins{color:#17803d;font-weight:600}.loses{color:#b42318;font-weight:600}.ties{color:#666}
h2{margin-top:2em;border-bottom:2px solid #eee}.note{color:#8a5a00}svg{display:block;margin:.3em 0 1em}
pre.headline{background:#f6f8fa;padding:1em;white-space:pre-wrap}nav ul{columns:3;margin:.3em 0 1em}
</style></head><body>
${sections.join('\n')}
</body></html>
`;
}

const STATUS_CLASS: Record<TargetResult['status'], string> = { met: 'wins', missed: 'loses', tie: 'ties', 'cannot judge': 'ties', 'not measured': 'ties' };

/** The section's anchor: its runtime and name, in characters an id and a URL fragment both take as they are. */
export function scenarioAnchor(scenario: Pick<ScenarioResult, 'runtime' | 'name'>): string {
  return `${scenario.runtime}-${scenario.name}`.replace(/[^A-Za-z0-9-]+/g, '-');
}

/** Links to every section: the scenarios by runtime and venue, in the order the report gives them. */
function tableOfContents(result: BenchResult, several: boolean, stock: boolean): string {
  const groups = new Map<string, ScenarioResult[]>();
  for (const s of result.scenarios) {
    const key = `${several ? `${s.runtime}, ` : ''}${s.venue}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  const scenarios = [...groups].map(([title, list]) => `<li>${escapeHtml(title)}: ${list.map((s) => `<a href="#${scenarioAnchor(s)}">${escapeHtml(s.name)}</a>`).join(', ')}</li>`).join('\n');
  const tail = [...(result.skipped.length > 0 ? ['<li><a href="#skipped">Skipped or failed</a></li>'] : []), '<li><a href="#run">The run</a></li>', '<li><a href="#targets">Targets</a></li>'];
  return `<nav id="contents"><h2>Contents</h2>\n<ul>\n<li><a href="#reading">How to read the charts</a></li>\n${stock ? '<li><a href="#stock-client">Our client on its defaults / the stock client</a></li>\n' : ''}${scenarios}\n${tail.join('\n')}\n</ul></nav>`;
}

/**
 * Our client on its defaults / the stock SDK client, the same server on this package's defaults: server CPU
 * and client p50 per call with the rounds' range, and the 1.05x target's verdict, one row per scenario.
 */
function stockSection(runtimes: Array<{ runtime: string; rows: StockRow[] }>, several: boolean): string {
  const tables = runtimes.map(({ runtime, rows }) => {
    const cells = rows.map((r) => {
      const cpu = r.comparison.metrics.cpu;
      const p50 = r.comparison.metrics.p50;
      const verdict = r.target ? `<td class="${STATUS_CLASS[r.target.status]}">${escapeHtml(statusWord(r.target))}</td>` : '<td>-</td>';
      return `<tr><td><a href="#${scenarioAnchor(r.scenario)}">${escapeHtml(r.scenario.name)}</a></td><td class="${cpu?.verdict ?? ''}">${cpu ? escapeHtml(formatRatio(cpu.ratio)) : '-'}</td><td class="${p50?.verdict ?? ''}">${p50 ? escapeHtml(formatRatio(p50.ratio)) : '-'}</td>${verdict}</tr>`;
    });
    return `${several ? `<h3>${escapeHtml(runtime)}</h3>\n` : ''}<table class="values"><tr><th>scenario</th><th>server CPU</th><th>client p50</th><th>&lt;= 1.05x</th></tr>\n${cells.join('\n')}</table>`;
  });
  return `<h2 id="stock-client">Our client on its defaults / the stock client</h2>
<p>The same server on this package's defaults, called by our client on its defaults and by the stock SDK JSON client in the same
alternating rounds: ours / stock, per call, median (min–max over the rounds). Above 1.05x server CPU, the defaults cost the server
more than the client its users would keep.</p>
${tables.join('\n')}`;
}

function scenarioSection(scenario: ScenarioResult, band: number): string {
  const codec = scenario.venue === 'codec';
  const valueMetrics = codec ? CODEC_VALUE_METRICS : CALL_VALUE_METRICS;
  const ratioMetrics = codec ? CODEC_RATIO_METRICS : CALL_RATIO_METRICS;
  const how = codec ? `${scenario.rounds} rounds, tinybench` : `${scenario.rounds} rounds × ${scenario.callsPerRound} calls, ${scenario.clients} client(s)`;
  const labelOf = (id: string) => scenario.variants.find((v) => v.id === id)?.label ?? id;
  const charts = scenario.comparisons.map((c) => `<h4>${escapeHtml(labelOf(c.candidate))} / ${escapeHtml(labelOf(c.baseline))}</h4>\n${ratioChart(c, ratioMetrics, band)}`).join('\n');
  const values =
    '<table class="values"><tr><th>variant</th>' +
    valueMetrics.map((k) => `<th>${escapeHtml(METRICS[k].label)}</th>`).join('') +
    '</tr>' +
    scenario.variants
      .map(
        (v) => `<tr><td>${escapeHtml(v.label)}${v.failed ? ' <span class="loses">(failed)</span>' : ''}</td>` + valueMetrics.map((k) => `<td>${escapeHtml(formatValue(k, v.values[k]))}</td>`).join('') + '</tr>',
      )
      .join('') +
    '</table>';
  const notes = scenario.notes.map((n) => `<p class="note">${escapeHtml(n)}</p>`).join('');
  const untrusted = scenario.untrusted ? ' <span class="loses">(NOT TRUSTWORTHY: a child died)</span>' : '';
  return `<h2 id="${scenarioAnchor(scenario)}">${escapeHtml(scenario.name)} [${escapeHtml(scenario.runtime)}]${untrusted}</h2>
<p>${escapeHtml(scenario.title)} — ${escapeHtml(how)}</p>
${charts}
${values}
${notes}`;
}

const CHART = { width: 760, row: 24, label: 190, text: 150 };
const COLORS = { wins: '#2e9e5b', ties: '#9aa0a6', loses: '#d64545' };

/** One horizontal bar per metric on a log scale centred on 1.0. */
function ratioChart(comparison: ComparisonResult, metrics: MetricKey[], band: number): string {
  const rows = metrics.filter((k) => comparison.metrics[k]);
  const plot = CHART.width - CHART.label - CHART.text;
  const extent = Math.max(
    2,
    ...rows.flatMap((k) => {
      const r = comparison.metrics[k]!.ratio;
      return [1 / Math.max(r.min, 1e-6), r.max];
    }),
  );
  const span = Math.log(Math.min(extent, 1000));
  const x = (ratio: number) => CHART.label + plot / 2 + (Math.log(Math.max(ratio, 1e-6)) / span) * (plot / 2);
  const clamp = (v: number) => Math.min(CHART.label + plot, Math.max(CHART.label, v));
  const height = rows.length * CHART.row + 20;
  const parts: string[] = [];
  parts.push(`<rect x="${clamp(x(1 - band))}" y="0" width="${clamp(x(1 + band)) - clamp(x(1 - band))}" height="${height - 20}" fill="#eee"/>`);
  rows.forEach((key, i) => {
    const { ratio, verdict } = comparison.metrics[key]!;
    const y = i * CHART.row;
    const mid = y + CHART.row / 2;
    const x1 = clamp(x(1));
    const xm = clamp(x(ratio.median));
    parts.push(`<text x="${CHART.label - 8}" y="${mid + 4}" text-anchor="end">${escapeHtml(METRICS[key].label)}</text>`);
    parts.push(`<rect x="${Math.min(x1, xm)}" y="${y + 5}" width="${Math.max(1, Math.abs(xm - x1))}" height="${CHART.row - 10}" fill="${COLORS[verdict]}"/>`);
    parts.push(`<line x1="${clamp(x(ratio.min))}" x2="${clamp(x(ratio.max))}" y1="${mid}" y2="${mid}" stroke="#333" stroke-width="1.5"/>`);
    parts.push(`<text x="${CHART.label + plot + 8}" y="${mid + 4}">${escapeHtml(formatRatio(ratio))} ${escapeHtml(verdict)}</text>`);
  });
  const axis = height - 20;
  parts.push(`<line x1="${clamp(x(1))}" x2="${clamp(x(1))}" y1="0" y2="${axis}" stroke="#000"/>`);
  for (const tick of [0.1, 0.25, 0.5, 1, 2, 4, 10]) {
    const tx = x(tick);
    if (tx < CHART.label || tx > CHART.label + plot) continue;
    parts.push(`<text x="${tx}" y="${axis + 14}" text-anchor="middle" font-size="11" fill="#666">${tick}x</text>`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${CHART.width}" height="${height}" font-size="12" font-family="system-ui,sans-serif">${parts.join('')}</svg>`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
