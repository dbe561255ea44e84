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
  return targets;
}
