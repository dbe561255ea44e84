// The three wires a user of this package chooses between, side by side per scenario: our JSON wire,
// MessagePack always and the adaptive default (each message in the encoding that costs less CPU), on what
// each costs the server, the client and the network. Read from the comparisons the rounds already made
// (candidate / json, round by round), so every figure here is a ratio measured in the same run.
import type { ComparisonResult, MetricKey, ScenarioResult } from '../results.js';
import { groupedTable } from './columns.js';
import { VERDICT_MARK } from './format.js';

/** The metrics of the side-by-side table, in the order a reader weighs them. */
export const WIRE_METRICS: ReadonlyArray<[MetricKey, string]> = [
  ['cpu', 'server CPU'],
  ['clientCpu', 'client CPU'],
  ['wire', 'wire bytes'],
];

/**
 * Which variant stands for "MessagePack always" in a scenario: with media, the one that carries them as
 * bytes (what a client of this package gets), elsewhere plain `msgpack`.
 */
export function msgpackAlwaysId(s: ScenarioResult): string | undefined {
  const ids = new Set(s.variants.map((v) => v.id));
  if (ids.has('msgpack-native')) return 'msgpack-native';
  return ids.has('msgpack') ? 'msgpack' : undefined;
}

function comparison(s: ScenarioResult, candidate: string | undefined, baseline: string): ComparisonResult | undefined {
  return candidate === undefined ? undefined : s.comparisons.find((c) => c.candidate === candidate && c.baseline === baseline);
}

/** The scenarios with our JSON wire and MessagePack always compared (the adaptive one where it ran). */
export function wireScenarios(scenarios: readonly ScenarioResult[]): ScenarioResult[] {
  return scenarios.filter((s) => s.venue !== 'codec' && s.venue !== 'revision' && comparison(s, msgpackAlwaysId(s), 'json') !== undefined);
}

function cell(c: ComparisonResult | undefined, key: MetricKey): string {
  const m = c?.metrics[key];
  return m ? `${ratioText(m.ratio.median)} ${VERDICT_MARK[m.verdict]}` : '-';
}

function ratioText(ratio: number): string {
  return `${ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}x`;
}

/**
 * One row per scenario: MessagePack always / JSON and adaptive / JSON, on server CPU, client CPU and wire
 * bytes. A variant that did not run reads `-` (e.g. quick mode's media over stdio has no
 * adaptive variant).
 */
export function wireTable(scenarios: readonly ScenarioResult[]): string {
  const rows = wireScenarios(scenarios).map((s) => {
    const always = comparison(s, msgpackAlwaysId(s), 'json');
    const adaptive = comparison(s, 'adaptive', 'json');
    return [s.name, ...WIRE_METRICS.flatMap(([key]) => [cell(always, key), cell(adaptive, key)])];
  });
  const header = ['scenario', ...WIRE_METRICS.flatMap(() => ['mp/json', 'ad/json'])];
  const top = ['', ...WIRE_METRICS.map(([, label]) => label)];
  const table = groupedTable(header, [{ rows }]);
  // A first header line naming each pair of columns, aligned over them.
  const widths = table
    .split('\n')[1]!
    .split('  ')
    .map((dashes) => dashes.length);
  const over = [top[0]!.padEnd(widths[0]!), ...WIRE_METRICS.map(([, label], i) => label.padStart(widths[1 + 2 * i]! + 2 + widths[2 + 2 * i]!))].join('  ').trimEnd();
  return `${over}\n${table}`;
}

/**
 * What the adaptive default gives up in bytes, in one sentence from this run's figures: where it sends JSON
 * to save CPU, MessagePack's smaller bodies are not sent. Undefined when no scenario compared both.
 */
export function bytesTradeOff(scenarios: readonly ScenarioResult[]): string | undefined {
  const pairs = wireScenarios(scenarios)
    .filter((s) => s.venue === 'object' || s.venue === 'numeric')
    .map((s) => ({ s, always: comparison(s, msgpackAlwaysId(s), 'json')?.metrics.wire, adaptive: comparison(s, 'adaptive', 'json')?.metrics.wire }))
    .filter((p): p is { s: ScenarioResult; always: NonNullable<typeof p.always>; adaptive: NonNullable<typeof p.adaptive> } => p.always !== undefined && p.adaptive !== undefined);
  if (pairs.length === 0) return undefined;
  const given = pairs.filter((p) => p.adaptive.ratio.median > p.always.ratio.median + 0.01);
  const list = (items: typeof pairs) => items.map((p) => `${p.s.name} ${ratioText(p.adaptive.ratio.median)} vs ${ratioText(p.always.ratio.median)}`).join(', ');
  if (given.length === 0) return `Bytes: on object and numeric results the adaptive default sent as few bytes as MessagePack always (adaptive vs MessagePack, per call / JSON: ${list(pairs)}).`;
  return (
    `Bytes: the adaptive default sends JSON where JSON costs less CPU, so it gives up part of MessagePack's byte saving on ` +
    `${given.length} of ${pairs.length} object and numeric scenarios (wire bytes per call / JSON, adaptive vs MessagePack always: ${list(given)}).`
  );
}
