import type { BenchResult, MetricKey, ScenarioResult, TargetResult } from './results.js';

const QUICK_LIMIT_MS = 120_000;

/** A target on one ratio of one comparison: where to find it, and how it must come out. */
interface RatioTargetSpec {
  id: string;
  description: string;
  threshold: number;
  scenario: string;
  candidate: string;
  baseline: string;
  metric: MetricKey;
  /** Said when the comparison is not in the run. */
  missing: string;
}

function ratioTarget(scenarios: readonly ScenarioResult[], spec: RatioTargetSpec): TargetResult {
  const { id, description, threshold, scenario, candidate, baseline, metric, missing } = spec;
  const where = { scenario, candidate, baseline, metric };
  const found = scenarios.find((s) => s.runtime === 'node' && s.name === scenario)?.comparisons.find((c) => c.candidate === candidate && c.baseline === baseline);
  const entry = found?.metrics[metric];
  if (!entry) return { id, description, threshold, ...where, status: 'not measured', note: missing };
  const measured = entry.ratio.median;
  return {
    id,
    description,
    threshold,
    ...where,
    measured,
    status: measured <= threshold ? 'met' : 'missed',
    note: `median ${measured.toFixed(3)}x, rounds ${entry.ratio.min.toFixed(3)}..${entry.ratio.max.toFixed(3)}`,
  };
}

/** The targets, checked against this run's own numbers. Misses are reported, never hidden. */
export function evaluateTargets(result: Pick<BenchResult, 'mode' | 'durationMs' | 'scenarios'>): TargetResult[] {
  const targets: TargetResult[] = [];
  targets.push(
    result.mode === 'quick'
      ? {
          id: 'quick-under-2-minutes',
          description: 'quick mode finishes in under 2 minutes',
          threshold: QUICK_LIMIT_MS / 1000,
          measured: result.durationMs / 1000,
          status: result.durationMs < QUICK_LIMIT_MS ? 'met' : 'missed',
          note: `${(result.durationMs / 1000).toFixed(1)} s`,
        }
      : { id: 'quick-under-2-minutes', description: 'quick mode finishes in under 2 minutes', threshold: 120, status: 'not measured', note: 'this was a --full run' },
  );

  const media = result.scenarios.find((s) => s.runtime === 'node' && s.name === 'media-5MiB/http-1');
  const missing = media ? 'no MessagePack-native vs JSON comparison in media-5MiB/http-1' : 'media-5MiB/http-1 did not run on Node (needs the media server and the HTTP transport)';
  const what = 'Node, 5 MiB media over HTTP, MessagePack + native bytes vs JSON on the same server';
  const mediaHttp = { scenario: 'media-5MiB/http-1', candidate: 'msgpack-native', baseline: 'json', missing };
  targets.push(ratioTarget(result.scenarios, { ...mediaHttp, id: 'media-cpu', description: `${what}: server CPU/call <= 0.25x`, threshold: 0.25, metric: 'cpu' }));
  targets.push(ratioTarget(result.scenarios, { ...mediaHttp, id: 'media-wire', description: `${what}: wire bytes <= 0.751x`, threshold: 0.751, metric: 'wire' }));
  targets.push(ratioTarget(result.scenarios, { ...mediaHttp, id: 'media-rss', description: `${what}: server peak RSS <= 0.6x`, threshold: 0.6, metric: 'peakRss' }));
  targets.push(ratioTarget(result.scenarios, { ...mediaHttp, id: 'media-p50', description: `${what}: client p50 <= 0.5x`, threshold: 0.5, metric: 'p50' }));

  // Over stdio the official server cannot send 5 MiB at all; ours must stay within 2x of raw bytes on the same pipe.
  const stdioMedia = result.scenarios.find((s) => s.runtime === 'node' && s.name === 'media-5MiB/stdio');
  targets.push(
    ratioTarget(result.scenarios, {
      id: 'media-stdio-vs-raw',
      description: 'Node, 5 MiB media over stdio, MessagePack + native bytes: client p50 <= 2x raw length-prefixed bytes through the same pipe',
      threshold: 2,
      scenario: 'media-5MiB/stdio',
      candidate: 'msgpack-native',
      baseline: 'raw',
      metric: 'p50',
      missing: stdioMedia ? 'no MessagePack-native vs raw comparison in media-5MiB/stdio' : 'media-5MiB/stdio did not run on Node',
    }),
  );

  const objects = result.scenarios.filter((s) => s.runtime === 'node' && s.venue === 'object');
  if (objects.length === 0) {
    targets.push({ id: 'object-cpu', description: 'Node, object-heavy: MessagePack server CPU/call <= JSON', threshold: 1, status: 'not measured', note: 'no object scenario ran on Node' });
  }
  for (const scenario of objects) {
    targets.push(
      ratioTarget(result.scenarios, {
        id: `object-cpu:${scenario.name}`,
        description: `Node, ${scenario.name}: MessagePack server CPU/call <= JSON's (same server)`,
        threshold: 1,
        scenario: scenario.name,
        candidate: 'msgpack',
        baseline: 'json',
        metric: 'cpu',
        missing: 'no MessagePack vs JSON comparison (HTTP transport not available?)',
      }),
    );
  }
  // The HTTP issue's targets: on small and structured payloads, neither of our wires costs the server more
  // CPU per call than the SDK's own Streamable HTTP server (JSON).
  const versusSdk = result.scenarios.filter((s) => s.runtime === 'node' && s.transport === 'http' && (s.venue === 'object' || s.venue === 'small'));
  for (const scenario of versusSdk) {
    for (const [candidate, label] of [
      ['msgpack', 'MessagePack'],
      ['json', 'our JSON'],
    ] as const) {
      targets.push(
        ratioTarget(result.scenarios, {
          id: `sdk-cpu:${scenario.name}:${candidate}`,
          description: `Node, ${scenario.name}: ${label} server CPU/call <= the SDK's own HTTP server's`,
          threshold: 1,
          scenario: scenario.name,
          candidate,
          baseline: 'stock-json',
          metric: 'cpu',
          missing: `no ${candidate} vs stock-json comparison`,
        }),
      );
    }
  }
  // The revision issue's target: MCP 2026-07-28's stateless path costs the server no more CPU per call
  // than the 2025-11-25 session path, on each wire (SDK v2 on both ends).
  for (const scenario of result.scenarios.filter((s) => s.runtime === 'node' && s.venue === 'revision')) {
    for (const wire of ['msgpack', 'json'] as const) {
      targets.push(
        ratioTarget(result.scenarios, {
          id: `revision-cpu:${scenario.name}:${wire}`,
          description: `Node, ${scenario.name}, ${wire === 'msgpack' ? 'MessagePack' : 'JSON'}: 2026-07-28 (stateless) server CPU/call <= the 2025-11-25 session path's`,
          threshold: 1,
          scenario: scenario.name,
          candidate: `stateless-${wire}`,
          baseline: `session-${wire}`,
          metric: 'cpu',
          missing: `no stateless-${wire} vs session-${wire} comparison`,
        }),
      );
    }
  }
  return targets;
}
