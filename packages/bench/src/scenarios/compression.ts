import type { CallWarmup } from '../runner/call-warmup.js';
import type { CallScenario } from '../runner/rounds.js';
import type { VariantSpec } from '../runner/variant.js';
import { RECORDED_CORPORA, replayedResults, SYNTHETIC_SHAPES } from '../compression/corpora.js';
import { callTool, type Budget } from './calls.js';

/**
 * The compression venue (issue 41, `--scenario compression`, HTTP, one client): a recorded session's tool
 * results (corpus/, real servers' replies) replayed as calls through our McpHttpHandler, and the synthetic
 * shapes beside them, with four variants in alternating rounds. Wire bytes are the relay's (headers
 * included), server CPU the server process's (every thread):
 * - `json`: our server, JSON replies, no coding (identity);
 * - `json-gzip6`: the same with every JSON reply gzipped at level 6 in the server's process (what a proxy
 *   adds; the cheapest such proxy, servers/optional.ts), our JSON client taking it;
 * - `stock-client`: the SDK's own client (its fetch asks `gzip, deflate`) against our server on its defaults
 *   with `compression: true` (what 'auto' does for a client that is not on loopback: gzip level 5 here);
 * - `compressed`: our client and server on their defaults with `compression: true` (zstd, or Brotli on Node 20);
 * - `msgpack`: the same with `compression: false`, so that `compressed / msgpack` is what the coding costs
 *   and `msgpack / json` what the wire costs, apart (the server CPU target's ratio holds both).
 * The issue's targets read `compressed` and `stock-client` against `json-gzip6` (targets.ts).
 */
export const COMPRESSION_BASELINE = 'json-gzip6';

export function compressionVariants(): VariantSpec[] {
  const base = { transport: 'http' as const, server: 'replay' as const, clients: 1, stack: 'ours' as const };
  return [
    { ...base, id: 'json', label: 'our server, JSON, no coding', wire: 'json', compression: 'off' },
    { ...base, id: COMPRESSION_BASELINE, label: 'our server, JSON + gzip level 6 added (as a proxy would)', wire: 'json', compression: 'gzip6' },
    { ...base, id: 'stock-client', label: 'SDK client (asks gzip) on our server, defaults + compression on', client: 'stock', wire: 'json', defaults: true, compression: 'on' },
    { ...base, id: 'compressed', label: 'our client and server, defaults + compression on', wire: 'msgpack', defaults: true, compression: 'on' },
    { ...base, id: 'msgpack', label: 'our client and server, defaults, compression off', wire: 'msgpack', defaults: true, compression: 'off' },
  ];
}

const COMPARISONS: Array<[string, string]> = [
  ['compressed', COMPRESSION_BASELINE],
  ['stock-client', COMPRESSION_BASELINE],
  [COMPRESSION_BASELINE, 'json'],
  ['compressed', 'json'],
  ['compressed', 'msgpack'],
  ['msgpack', 'json'],
];

/**
 * The venue's warm-up in calls (runner/call-warmup.ts), measured in windows of 500 calls of the filesystem
 * session (docs/MEASUREMENTS.md, issue 41, "A warm-up counted in calls"): a Node 20 server's CPU per call fell
 * until about 4,000 calls (to 0.45-0.6x of its first window's), Bun's until about 1,500. A server a previous
 * scenario warmed still fell over a new session's first 1,000-2,000 calls on Node. --full warms to that
 * steady state (about 10 s a variant on Node on a loaded 2-core machine); quick mode, when --scenario names the
 * venue, 1,000 calls on a fresh server (Bun's nearly steady, Node's at about 1.5x its warm cost), and says the
 * servers are still warming.
 */
export function compressionWarmup(mode: 'quick' | 'full', smoke: boolean): CallWarmup | undefined {
  if (smoke) return undefined;
  if (mode === 'full') return { calls: 4000, reusedCalls: 2000, window: 500, steady: true };
  return { calls: 1000, reusedCalls: 0, window: 500, steady: false };
}

/** The recorded corpora first (the targets read them), then the synthetic shapes. */
export function compressionScenarios(budget: Budget, callWarmup?: CallWarmup): CallScenario[] {
  const cases = [
    ...Object.keys(RECORDED_CORPORA).map((corpus) => ({ corpus, title: `recorded session (${RECORDED_CORPORA[corpus]}), its tool results replayed in order` })),
    ...Object.keys(SYNTHETIC_SHAPES).map((corpus) => ({ corpus, title: `synthetic ${corpus} (payloads.ts; compresses unlike real traffic)` })),
  ];
  return cases.map(({ corpus, title }) => {
    const count = replayedResults(corpus).length;
    return {
      kind: 'calls',
      name: `compression-${corpus}/http-1`,
      venue: 'compression',
      title,
      transport: 'http',
      clients: 1,
      variants: compressionVariants(),
      comparisons: COMPARISONS,
      call: async (client, index) => {
        const result = await callTool(client, 'replay', { corpus, index: index % count });
        if (!Array.isArray(result.content) || result.content.length === 0) throw new Error(`replay ${corpus} ${index % count}: no content`);
      },
      ...budget,
      // Every round replays the whole session a whole number of times, so each variant's rounds see every
      // reply equally often.
      minCalls: Math.max(budget.minCalls, count),
      maxCalls: Math.max(budget.maxCalls, count),
      callsMultiple: count,
      ...(callWarmup ? { callWarmup } : {}),
    };
  });
}
