// What an operator pays when the users of a server on this package's defaults adopt our client on its
// defaults, against keeping the stock SDK client (issue 30): one row per scenario, and one sentence that
// names every scenario where the defaults cost the server more than the stock client. Read from the
// comparisons the rounds made (ours / stock client, same server, round by round) and from the targets' own
// verdicts (judge.ts), so a tie and a quick run's CAN'T JUDGE read here as they do under TARGETS.
import type { ComparisonResult, ScenarioResult, TargetResult } from '../results.js';
import { STOCK_CLIENT } from '../targets.js';
import { groupedTable } from './columns.js';
import { formatRatio } from './format.js';
import { statusWord } from './target-words.js';

/** The allowance of the stock-client target: above it, the defaults cost more. */
const ALLOWANCE = 1.05;

export interface StockRow {
  scenario: ScenarioResult;
  comparison: ComparisonResult;
  target?: TargetResult;
}

/** The scenarios of one runtime where our client on its defaults was compared with the stock client. */
export function stockRows(scenarios: readonly ScenarioResult[], targets: readonly TargetResult[], runtime: string): StockRow[] {
  const rows: StockRow[] = [];
  for (const scenario of scenarios.filter((s) => s.runtime === runtime)) {
    const comparison = scenario.comparisons.find((c) => c.baseline === STOCK_CLIENT);
    if (!comparison) continue;
    const target = targets.find((t) => t.runtime === runtime && t.scenario === scenario.name && t.baseline === STOCK_CLIENT && t.metric === 'cpu');
    rows.push({ scenario, comparison, ...(target ? { target } : {}) });
  }
  return rows;
}

function cpuText(row: StockRow): string {
  const cpu = row.comparison.metrics.cpu;
  return cpu ? formatRatio(cpu.ratio) : '-';
}

/**
 * The verdict in words, for the headline: where the defaults cost the server more than the stock client
 * (missed: every round beyond the noise band, median over 1.05x), where the median is over 1.05x but the
 * rounds cannot tell it from 1.0 (a tie), where a quick run's rounds are too short to judge a median over
 * 1.05x, and how many are within 1.05x. Undefined when no scenario made the comparison.
 */
export function stockVerdict(rows: readonly StockRow[], on = ''): string | undefined {
  if (rows.length === 0) return undefined;
  const over = (r: StockRow) => (r.comparison.metrics.cpu?.ratio.median ?? 0) > ALLOWANCE;
  const list = (items: StockRow[]) => items.map((r) => `${r.scenario.name} ${cpuText(r)}`).join(', ');
  const missed = rows.filter((r) => r.target?.status === 'missed');
  const tied = rows.filter((r) => r.target?.status === 'tie' && over(r));
  const unjudged = rows.filter((r) => r.target?.status === 'cannot judge' && over(r));
  const within = rows.filter((r) => !over(r)).length;
  const parts = [
    missed.length > 0 ? `COSTS MORE (over ${ALLOWANCE}x in every round) in ${missed.length}: ${list(missed)}` : `costs more (over ${ALLOWANCE}x in every round) in none`,
    ...(tied.length > 0 ? [`over ${ALLOWANCE}x by the median but inside the noise (TIE) in ${tied.length}: ${list(tied)}`] : []),
    ...(unjudged.length > 0 ? [`over ${ALLOWANCE}x by the median in rounds too short to judge (CAN'T JUDGE) in ${unjudged.length}: ${list(unjudged)}`] : []),
    `within ${ALLOWANCE}x by the median in ${within}`,
  ];
  const extra = rows.filter((r) => r.comparison.rounds !== undefined);
  const most = Math.max(0, ...extra.map((r) => r.comparison.rounds!));
  const how =
    extra.length === 0
      ? ''
      : ` Where the scenario's rounds left the target open, the two ran alone for extra rounds of at least ${Math.min(...extra.map((r) => r.comparison.callsPerRound!))} calls: ${extra.length} of ${rows.length}` +
        (most > 6 ? `; over more than 6 rounds the range is the median's interval (over 12 rounds, the 3rd smallest to the 3rd largest).` : '.');
  return (
    `STOCK CLIENT${on}: a server on this package's defaults, called by our client on its defaults / by the stock SDK JSON client, ` +
    `server CPU per call, median (rounds' range), ${rows.length} scenarios: ${parts.join('; ')}.${how}`
  );
}

/** One row per scenario: server CPU and client p50, ours / stock client, with the rounds' range and the target's verdict. */
export function stockTable(rows: readonly StockRow[]): string {
  const body = rows.map((r) => {
    const p50 = r.comparison.metrics.p50;
    return [r.scenario.name, cpuText(r), p50 ? formatRatio(p50.ratio) : '-', r.target ? statusWord(r.target) : '-'];
  });
  return groupedTable(['scenario', 'server CPU', 'client p50', `<= ${ALLOWANCE}x`], [{ rows: body }]);
}
