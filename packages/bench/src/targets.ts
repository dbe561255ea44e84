import type { BenchResult, ComparisonResult, MetricKey, ScenarioResult, TargetResult } from './results.js';

const QUICK_LIMIT_MS = 120_000;

function comparison(scenario: ScenarioResult | undefined, candidate: string, baseline: string): ComparisonResult | undefined {
  return scenario?.comparisons.find((c) => c.candidate === candidate && c.baseline === baseline);
}

function ratioTarget(id: string, description: string, threshold: number, found: ComparisonResult | undefined, metric: MetricKey, missing: string): TargetResult {
  const entry = found?.metrics[metric];
  if (!entry) return { id, description, threshold, status: 'not measured', note: missing };
  const measured = entry.ratio.median;
  return {
    id,
    description,
    threshold,
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
  const mediaCmp = comparison(media, 'msgpack-native', 'json');
  const missing = media ? 'no MessagePack-native vs JSON comparison in media-5MiB/http-1' : 'media-5MiB/http-1 did not run on Node (needs the media server and the HTTP transport)';
  const what = 'Node, 5 MiB media over HTTP, MessagePack + native bytes vs JSON on the same server';
  targets.push(ratioTarget('media-cpu', `${what}: server CPU/call <= 0.25x`, 0.25, mediaCmp, 'cpu', missing));
  targets.push(ratioTarget('media-wire', `${what}: wire bytes <= 0.751x`, 0.751, mediaCmp, 'wire', missing));
  targets.push(ratioTarget('media-rss', `${what}: server peak RSS <= 0.6x`, 0.6, mediaCmp, 'peakRss', missing));
  targets.push(ratioTarget('media-p50', `${what}: client p50 <= 0.5x`, 0.5, mediaCmp, 'p50', missing));

  // Over stdio the official server cannot send 5 MiB at all; ours must stay within 2x of raw bytes on the same pipe.
  const stdioMedia = result.scenarios.find((s) => s.runtime === 'node' && s.name === 'media-5MiB/stdio');
  targets.push(
    ratioTarget(
      'media-stdio-vs-raw',
      'Node, 5 MiB media over stdio, MessagePack + native bytes: client p50 <= 2x raw length-prefixed bytes through the same pipe',
      2,
      comparison(stdioMedia, 'msgpack-native', 'raw'),
      'p50',
      stdioMedia ? 'no MessagePack-native vs raw comparison in media-5MiB/stdio' : 'media-5MiB/stdio did not run on Node',
    ),
  );

  const objects = result.scenarios.filter((s) => s.runtime === 'node' && s.venue === 'object');
  if (objects.length === 0) {
    targets.push({ id: 'object-cpu', description: 'Node, object-heavy: MessagePack server CPU/call <= JSON', threshold: 1, status: 'not measured', note: 'no object scenario ran on Node' });
  }
  for (const scenario of objects) {
    targets.push(
      ratioTarget(
        `object-cpu:${scenario.name}`,
        `Node, ${scenario.name}: MessagePack server CPU/call <= JSON's (same server)`,
        1,
        comparison(scenario, 'msgpack', 'json'),
        'cpu',
        'no MessagePack vs JSON comparison (HTTP transport not available?)',
      ),
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
        ratioTarget(
          `sdk-cpu:${scenario.name}:${candidate}`,
          `Node, ${scenario.name}: ${label} server CPU/call <= the SDK's own HTTP server's`,
          1,
          comparison(scenario, candidate, 'stock-json'),
          'cpu',
          `no ${candidate} vs stock-json comparison`,
        ),
      );
    }
  }
  // The revision issue's target: MCP 2026-07-28's stateless path costs the server no more CPU per call
  // than the 2025-11-25 session path, on each wire (SDK v2 on both ends).
  for (const scenario of result.scenarios.filter((s) => s.runtime === 'node' && s.venue === 'revision')) {
    for (const wire of ['msgpack', 'json'] as const) {
      targets.push(
        ratioTarget(
          `revision-cpu:${scenario.name}:${wire}`,
          `Node, ${scenario.name}, ${wire === 'msgpack' ? 'MessagePack' : 'JSON'}: 2026-07-28 (stateless) server CPU/call <= the 2025-11-25 session path's`,
          1,
          comparison(scenario, `stateless-${wire}`, `session-${wire}`),
          'cpu',
          `no stateless-${wire} vs session-${wire} comparison`,
        ),
      );
    }
  }
  return targets;
}
