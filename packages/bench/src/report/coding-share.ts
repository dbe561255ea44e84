import type { ScenarioResult } from '../results.js';

// What the compression venue's coding itself costs, beside the whole-call ratio its server CPU target reads
// (issue 41; docs/MEASUREMENTS.md, "The server CPU target on Node 22, 24 and Bun"). `compressed` against
// `json-gzip6` holds three things: the server's own call (MCP, HTTP, the wire), our coding, and the runtime's
// gzip 6 (Bun's adds about a third of what Node's does). The coding's share sets the first aside:
// (compressed - msgpack) against (json-gzip6 - json), each the same server with and without its coding.

/** The four variants the share needs, by id (a `--baseline` run's have `@baseline` after theirs). */
const CODED = 'compressed';
const UNCODED = 'msgpack';
const GZIPPED = 'json-gzip6';
const PLAIN = 'json';

/**
 * One line per build in the scenario: the server CPU per call our coding adds and what gzip 6 adds, from the
 * rounds' medians, and their ratio; '' outside the compression venue or when a variant is missing.
 */
export function codingShareLines(s: ScenarioResult): string {
  if (s.venue !== 'compression') return '';
  const lines: string[] = [];
  for (const suffix of ['', '@baseline']) {
    const cpu = (id: string): number | undefined => {
      const variant = s.variants.find((v) => v.id === `${id}${suffix}` && !v.failed);
      return variant?.values.cpu;
    };
    const [coded, uncoded, gzipped, plain] = [CODED, UNCODED, GZIPPED, PLAIN].map(cpu);
    if (coded === undefined || uncoded === undefined || gzipped === undefined || plain === undefined) continue;
    const ours = coded - uncoded;
    const gzip = gzipped - plain;
    const share = gzip > 0 ? `${(ours / gzip).toFixed(2)}x` : 'n/a (gzip 6 added nothing measurable)';
    const us = (ms: number) => `${Math.round(ms * 1000)} µs`;
    lines.push(
      `\n  server CPU per call the coding adds${suffix ? ` (${suffix.slice(1)})` : ''}, from the medians: ours ${us(ours)} (${CODED} - ${UNCODED}), gzip 6 ${us(gzip)} (${GZIPPED} - ${PLAIN}): ${share}`,
    );
  }
  return lines.join('');
}
