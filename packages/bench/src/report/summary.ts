// The short report every run prints first: what ran and the verdict per venue, the legend, the targets, one
// headline ratio row per scenario, and anything that failed. It fits SUMMARY_WIDTH columns (a terminal's 80);
// the full tables are in --details, --json and --report.
import type { BenchResult, ComparisonResult, MetricKey, ScenarioResult, TargetResult } from '../results.js';
import { METRICS } from '../results.js';
import { formatBytes, VERDICT_MARK, wrapWords } from './format.js';
import type { Venue } from '../options.js';
import { glossary, variantsOfPair } from './glossary.js';
import { groupedTable } from './columns.js';
import { bytesTradeOff, wireScenarios, wireTable } from './wires.js';
import { statusWord, targetCounts } from './target-words.js';
import { stockRows, stockTable, stockVerdict } from './stock.js';
import { childExitSection } from './child-exits.js';

export const SUMMARY_WIDTH = 80;

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
/** The order venues are told in: where the wire pays most first. */
const VENUE_ORDER: readonly Venue[] = ['media', 'numeric', 'object', 'text', 'small', 'revision', 'compression', 'codec'];
/** A comparison in words, for the verdict lines (which come before the legend). */
const PAIR_WORDS: Record<string, string> = {
  'msgpack-native / json': 'native bytes vs JSON',
  'msgpack / json': 'MessagePack vs JSON',
  'msgpack-guard / json': 'MessagePack vs JSON',
  'stateless-msgpack / session-msgpack': '2026-07-28 vs 2025-11-25',
  'compressed / json-gzip6': 'ours compressed vs JSON + gzip 6',
};

/**
 * The headline, which the terminal and the HTML report both open with: what ran, the verdict per venue in
 * plain words, where our client on its defaults costs a server more than the stock client, and the targets'
 * count.
 */
export function headline(result: BenchResult): string[] {
  const runtimes = [...new Set(result.scenarios.map((s) => s.runtime))];
  // A child that died comes first: nothing below is to be read as sound until it is.
  const died = childExitSection(result);
  const sections = [...(died ? [died] : []), overview(result, runtimes)];
  for (const runtime of runtimes)
    sections.push(
      venueVerdicts(
        result.scenarios.filter((s) => s.runtime === runtime),
        runtime,
        runtimes.length > 1,
      ),
    );
  for (const runtime of runtimes) {
    const verdict = stockVerdict(stockRows(result.scenarios, result.targets, runtime), runtimes.length > 1 ? ` on ${runtime}` : '');
    if (verdict) sections.push(wrapWords(verdict, SUMMARY_WIDTH));
  }
  sections.push(wrapWords(`TARGETS: ${targetCounts(result.targets)} (each listed below, with its reason).`, SUMMARY_WIDTH));
  return sections;
}

/**
 * The first screen: the headline (what ran, the verdict per venue, the targets' count), the legend (every
 * label the tables use), the targets, one headline row per scenario, and what failed.
 */
export function renderSummary(result: BenchResult): string {
  const runtimes = [...new Set(result.scenarios.map((s) => s.runtime))];
  const sections = headline(result);
  sections.push(legend(result));
  // Our three wires side by side come before the targets: the one screen a reader weighs them on.
  for (const runtime of runtimes) {
    const calls = result.scenarios.filter((s) => s.runtime === runtime && s.venue !== 'codec');
    if (wireScenarios(calls).length > 0) sections.push(wireSection(calls, runtimes.length > 1 ? ` on ${runtime}` : ''));
  }
  for (const runtime of runtimes) {
    const rows = stockRows(result.scenarios, result.targets, runtime);
    if (rows.length > 0) sections.push(stockSection(rows, runtimes.length > 1 ? ` on ${runtime}` : ''));
  }
  sections.push(targetSection(result.targets, runtimes.length > 1));
  for (const runtime of runtimes) {
    const scenarios = result.scenarios.filter((s) => s.runtime === runtime);
    const on = runtimes.length > 1 ? ` on ${runtime}` : '';
    const calls = scenarios.filter((s) => s.venue !== 'codec');
    const codec = scenarios.filter((s) => s.venue === 'codec');
    if (calls.length > 0) sections.push(`HEADLINE RATIOS${on}: ours / baseline, one row per scenario\n` + headlineTable(calls, CALL_COLUMNS));
    if (codec.length > 0) sections.push(`CODEC ALONE${on}: ours / JSON\n` + headlineTable(codec, CODEC_COLUMNS));
  }
  const problems = [...result.scenarios.flatMap((s) => s.notes.map((note) => `${s.name}${runtimes.length > 1 ? ` [${s.runtime}]` : ''}: ${note}`)), ...result.skipped];
  if (problems.length > 0) sections.push('FAILED, SKIPPED OR NOT AS LABELLED\n' + problems.map((p) => wrapWords(p, SUMMARY_WIDTH, '- ', '  ')).join('\n'));
  sections.push(wrapWords('Every value, ratio range and verdict: --details (or --json FILE, --report FILE).', SUMMARY_WIDTH));
  return sections.join('\n\n') + '\n';
}

/** Our three wires side by side: server CPU, client CPU and bytes, MessagePack always and adaptive / JSON. */
function wireSection(calls: ScenarioResult[], on: string): string {
  const title = wrapWords(
    `WIRES SIDE BY SIDE${on}, per call / our JSON wire: mp = MessagePack always (media: with native bytes), ad = adaptive (each message in the encoding that costs less CPU; "-": not run there)`,
    SUMMARY_WIDTH,
  );
  const tradeOff = bytesTradeOff(calls);
  return [title, wireTable(calls), ...(tradeOff ? [wrapWords(tradeOff, SUMMARY_WIDTH)] : [])].join('\n');
}

/** Our client on its defaults / the stock client, same server: one row per scenario. */
function stockSection(rows: Parameters<typeof stockTable>[0], on: string): string {
  const title = wrapWords(`OUR CLIENT ON ITS DEFAULTS / THE STOCK SDK CLIENT${on}, the same server on this package's defaults, per call, median (rounds' range); the target: server CPU <= 1.05x`, SUMMARY_WIDTH);
  return `${title}\n${stockTable(rows)}`;
}

function overview(result: BenchResult, runtimes: string[]): string {
  const env = result.environment;
  const on = Object.entries(env.runtimes)
    .map(([k, v]) => `${k} ${v}`)
    .join(' and ');
  const calls = result.scenarios.filter((s) => s.venue !== 'codec').length;
  const codec = result.scenarios.filter((s) => s.venue === 'codec').length;
  const transports = [...new Set(result.scenarios.map((s) => s.transport).filter((t) => t !== 'in-process'))].join(' and ');
  const what = [calls > 0 ? `${calls} call scenarios${transports ? ` over ${transports}` : ''}` : '', codec > 0 ? `${codec} codec payloads` : ''].filter(Boolean).join(' and ');
  return wrapWords(
    `mcp-msgpack-bench ${env.packages['mcp-msgpack-bench'] ?? ''} measured what the MessagePack wire (msgpack-v1) and native bytes ` +
      `change for an MCP server: the same tools answered in JSON and in MessagePack by our transport, next to ` +
      `the MCP SDK's own transport. ${result.mode === 'full' ? 'Full' : 'Quick'} mode: ${what || 'nothing'}` +
      `${runtimes.length > 0 ? ` on ${on}` : ''}, ${(result.durationMs / 1000).toFixed(0)} s, ` +
      `${env.cpu}, ${env.cores} cores, ${formatBytes(env.memoryBytes)}.`,
    SUMMARY_WIDTH,
  );
}

/** One line per venue: the headline comparison's verdict on server CPU (codec: encode+decode time). */
function venueVerdicts(scenarios: ScenarioResult[], runtime: string, several: boolean): string {
  const lines = [
    wrapWords(
      `VERDICT PER VENUE${several ? ` on ${runtime}` : ''}, ours / our JSON on server CPU per call (codec: encode+decode time; compression: ours compressed / JSON + gzip 6). A venue is one kind of workload (media, numbers, objects, text, small calls, the MCP revision, compression, the codec alone), each run as several scenarios; --scenario takes its name.`,
      SUMMARY_WIDTH,
    ),
  ];
  for (const venue of VENUE_ORDER) {
    const entries = scenarios
      .filter((s) => s.venue === venue)
      .map((s) => ({ c: headlineComparison(s) }))
      .map(({ c }) => ({ c, m: c?.metrics[venue === 'codec' ? 'codecTime' : 'cpu'] }))
      .filter((e): e is { c: ComparisonResult; m: NonNullable<typeof e.m> } => e.c !== undefined && e.m !== undefined);
    if (entries.length === 0) continue;
    const count = (v: string) => entries.filter((e) => e.m.verdict === v).length;
    const verdicts = (['wins', 'ties', 'loses'] as const).filter((v) => count(v) > 0);
    const word = verdicts.length === 1 ? verdicts[0]! : 'mixed';
    const medians = entries.map((e) => e.m.ratio.median);
    const low = Math.min(...medians);
    const high = Math.max(...medians);
    const range = low === high ? ratioText(low) : `${ratioText(low).slice(0, -1)}-${ratioText(high)}`;
    const pairs = [...new Set(entries.map((e) => PAIR_WORDS[`${e.c.candidate} / ${e.c.baseline}`] ?? `${e.c.candidate} vs ${e.c.baseline}`))];
    const n = entries.length;
    const counts = word === 'mixed' ? verdicts.map((v) => `${v} ${count(v)}`).join(', ') : `${n} scenario${n > 1 ? 's' : ''}`;
    lines.push(wrapWords(`${pairs.join(', ')}: ${range} (${counts})`, SUMMARY_WIDTH, `  ${venue.padEnd(9)}${word.padEnd(7)}`, ' '.repeat(18)));
  }
  return lines.join('\n');
}

function legend(result: BenchResult): string {
  const names = result.scenarios.filter((s) => headlineComparison(s)).map((s) => s.name);
  const pairs = [
    ...result.scenarios.map(headlineComparison).filter((c): c is ComparisonResult => c !== undefined),
    ...result.targets.filter((t) => t.candidate && t.baseline && t.status !== 'not measured').map((t) => ({ candidate: t.candidate!, baseline: t.baseline! })),
  ];
  const sideBySide = wireScenarios(result.scenarios).length > 0 ? ['json', 'msgpack', 'adaptive'] : [];
  const ids = [...new Set([...pairs.flatMap((p) => variantsOfPair(p.candidate, p.baseline)), ...sideBySide])];
  return (
    'HOW TO READ WHAT FOLLOWS\n' +
    glossary(names, ids, result.noiseBand)
      .map((line) => wrapWords(line, SUMMARY_WIDTH))
      .join('\n')
  );
}

function targetSection(targets: TargetResult[], several: boolean): string {
  const title = `TARGETS: ${targetCounts(targets)}`;
  const ratios = targets.filter((t) => t.scenario !== undefined);
  const groups = new Map<string, string[][]>();
  for (const t of ratios.filter((r) => r.status !== 'not measured')) {
    const title = `${pairLabel(t.candidate ?? '', t.baseline ?? '')}${several ? ` on ${t.runtime}` : ''}:`;
    const row = [statusWord(t), `  ${t.scenario!}`, SHORT_METRIC[t.metric!] ?? METRICS[t.metric!].label, t.measured === undefined ? '-' : ratioText(t.measured), `<= ${t.threshold}x`];
    groups.set(title, [...(groups.get(title) ?? []), row]);
  }
  const others = targets.filter((t) => t.scenario === undefined).map((t) => wrapWords(`${statusWord(t)}  ${t.description}${t.note ? `: ${t.note}` : ''}`, SUMMARY_WIDTH, '', '         '));
  // Targets whose scenario did not run (a --scenario filter, a skipped venue): one line, not a row each.
  const unmeasured = ratios.filter((t) => t.status === 'not measured');
  const notMeasured =
    unmeasured.length === 0
      ? []
      : [wrapWords(`NOT RUN ${unmeasured.length} targets on scenarios this run did not measure: ${[...new Set(unmeasured.map((t) => t.scenario))].join(', ')}`, SUMMARY_WIDTH, '', '        ')];
  const table =
    groups.size === 0
      ? []
      : [
          groupedTable(
            ['', 'ours / baseline, scenario', 'metric', 'ratio', 'target'],
            [...groups].map(([title, rows]) => ({ title, rows })),
            3,
          ),
        ];
  return [wrapWords(title, SUMMARY_WIDTH), ...others, ...notMeasured, ...table, ...verdictNotes(ratios)].join('\n');
}

/** What a tie and a CAN'T JUDGE mean, said under the table when it has one, with each unjudged scenario's reason. */
function verdictNotes(targets: TargetResult[]): string[] {
  const notes: string[] = [];
  const ties = targets.filter((t) => t.status === 'tie');
  if (ties.length > 0) {
    const crossing = ties.filter((t) => t.reason === 'range crosses 1.0').length;
    const why = crossing === ties.length ? "the rounds' range crosses 1.0" : `the rounds' range crosses 1.0 (${crossing} of ${ties.length}) or the median is within the noise band`;
    notes.push(`TIE: inside the noise, neither met nor missed: ${why}. "Leans worse" or "better" says which side of 1.0 the median fell on: a direction to check with --full, not a result.`);
  }
  const untrusted = targets.filter((t) => t.untrusted);
  if (untrusted.length > 0) {
    const why = [...new Map(untrusted.map((t) => [t.scenario, t.reason])).entries()].map(([scenario, reason]) => `${scenario}: ${reason}`).join('; ');
    notes.push(`UNTRUSTED: not judged, whatever their ratios say, because a child process serving the scenario died (CHILD PROCESSES THAT DIED, at the top): ${why}.`);
  }
  const unjudged = targets.filter((t) => t.status === 'cannot judge' && !t.untrusted);
  if (unjudged.length > 0) {
    const byReason = new Map<string, Set<string>>();
    for (const t of unjudged) byReason.set(t.reason ?? '', (byReason.get(t.reason ?? '') ?? new Set()).add(t.scenario!));
    const why = [...byReason].map(([reason, scenarios]) => `${[...scenarios].join(', ')}: ${reason}`).join('; ');
    notes.push(`CAN'T JUDGE: this quick run's rounds cannot decide these targets (bytes are counted and always judged; time and memory are not): ${why}.`);
  }
  return notes.map((note) => wrapWords(note, SUMMARY_WIDTH));
}

/** One row per scenario under its comparison (ours against our own JSON, or the codec's baseline). */
function headlineTable(scenarios: ScenarioResult[], columns: Array<[MetricKey, string]>): string {
  const groups = new Map<string, string[][]>();
  for (const s of scenarios) {
    const c = headlineComparison(s);
    if (!c) continue;
    const title = `${pairLabel(c.candidate, c.baseline)}:`;
    groups.set(title, [...(groups.get(title) ?? []), [`  ${s.name}`, ...columns.map(([k]) => mark(c, k))]]);
  }
  return groupedTable(
    ['ours / baseline, scenario', ...columns.map(([, label]) => label)],
    [...groups].map(([title, rows]) => ({ title, rows })),
  );
}

function ratioText(ratio: number): string {
  return `${ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}x`;
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
  // The compression venue's question is ours against JSON + gzip 6 (a proxy's), its first comparison.
  if (s.venue === 'compression') return s.comparisons[0];
  return s.comparisons.find((c) => c.baseline === 'json') ?? s.comparisons[0];
}

function mark(c: ComparisonResult, key: MetricKey): string {
  const m = c.metrics[key];
  return m ? `${ratioText(m.ratio.median)} ${VERDICT_MARK[m.verdict]}` : '-';
}
