import { judgeRatio } from './judge.js';
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
  /**
   * 'bound' (the default for any threshold but 1): the median must be under the threshold. 'parity' (the
   * default for 1): no worse than the baseline, within the threshold, by the benchmark's tie rule.
   */
  rule?: 'bound' | 'parity';
  /** The run's mode: a quick run says which targets its rounds are too short to judge. */
  mode: 'quick' | 'full';
}

/**
 * A target on a ratio. One of "no more than the baseline" (threshold 1) follows the benchmark's tie rule: a
 * ratio its rounds cannot tell from 1.0 is a tie, neither met nor missed. Any other threshold is a bound
 * the median must be under.
 */
function ratioTarget(scenarios: readonly ScenarioResult[], runtime: string, spec: RatioTargetSpec): TargetResult {
  const { id, description, threshold, scenario, candidate, baseline, metric, missing } = spec;
  const where = { runtime, scenario, candidate, baseline, metric };
  const ran = scenarios.find((s) => s.runtime === runtime && s.name === scenario);
  const comparison = ran?.comparisons.find((c) => c.candidate === candidate && c.baseline === baseline);
  const entry = comparison?.metrics[metric];
  if (!ran || !comparison || !entry) return { id, description, threshold, ...where, status: 'not measured', note: missing };
  const measured = entry.ratio.median;
  const rule = spec.rule ?? (threshold === 1 ? 'parity' : 'bound');
  // A comparison with rounds of its own (quick mode's extra rounds) is judged on those.
  const rounds = comparison.rounds ?? ran.rounds;
  const callsPerRound = comparison.callsPerRound ?? ran.callsPerRound;
  const judged = judgeRatio({ mode: spec.mode, rounds, callsPerRound, metric, ratio: entry.ratio, verdict: entry.verdict, threshold, rule });
  return {
    id,
    description,
    threshold,
    ...where,
    measured,
    ...judged,
    note: `median ${measured.toFixed(3)}x, rounds ${entry.ratio.min.toFixed(3)}..${entry.ratio.max.toFixed(3)}${entry.ratio.low === undefined ? '' : ` (median's interval ${entry.ratio.low.toFixed(3)}..${entry.ratio.high!.toFixed(3)} over ${entry.ratio.rounds} rounds)`}${comparison.note ? `, ${comparison.note}` : ''}${judged.reason ? `: ${judged.reason}` : ''}`,
  };
}

/**
 * The issues' targets, checked against this run's own numbers, on every runtime the run measured (the same
 * targets for Bun as for Node). Misses are reported, never hidden.
 */
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

  const runtimes = [...new Set(result.scenarios.map((s) => s.runtime))];
  for (const runtime of runtimes.length > 0 ? runtimes : ['node']) targets.push(...runtimeTargets(result.scenarios, runtime, result.mode));
  return targets.map((t) => distrusted(t, result.scenarios));
}

/**
 * A target read from a scenario whose child process died (ScenarioResult.untrusted) is not judged: "cannot
 * judge", with the death as its reason, whatever its ratio says.
 */
export function distrusted(target: TargetResult, scenarios: readonly ScenarioResult[]): TargetResult {
  const scenario = target.scenario === undefined ? undefined : scenarios.find((s) => s.runtime === target.runtime && s.name === target.scenario && s.untrusted);
  if (!scenario) return target;
  const { lean: _lean, ...rest } = target;
  return { ...rest, status: 'cannot judge', untrusted: true, reason: `not trustworthy: ${scenario.untrusted}` };
}

/**
 * The media bound on server CPU per 5 MiB native read against JSON, per runtime (issue 20 set Bun's at 0.5x:
 * Bun's JSON is cheaper, so the same work is a smaller share of it). Native bytes and the adaptive default
 * are held to the same bound.
 */
export const MEDIA_CPU_BOUND: Record<string, number> = { node: 0.25, bun: 0.5 };

/**
 * Issue 20's targets: the adaptive default (each message in the encoding that costs less CPU) is never
 * dearer than the cheaper of JSON and MessagePack always (server CPU within 1.05x, client CPU no worse), in
 * every call scenario where it runs, and keeps the media wins.
 */
export function adaptiveTargets(scenarios: readonly ScenarioResult[], runtime: string, mode: 'quick' | 'full' = 'full'): TargetResult[] {
  const targets: TargetResult[] = [];
  const judge = (spec: Omit<RatioTargetSpec, 'mode'>) => ratioTarget(scenarios, runtime, { ...spec, mode });
  const Runtime = runtime === 'bun' ? 'Bun' : runtime === 'node' ? 'Node' : runtime;
  const idOf = (id: string) => (runtime === 'node' ? id : `${runtime}:${id}`);
  const mine = scenarios.filter((s) => s.runtime === runtime && s.venue !== 'codec');
  for (const scenario of mine) {
    const best = scenario.comparisons.find((c) => c.candidate === 'adaptive' && c.baseline.startsWith('min('));
    if (!best) continue;
    const where = { scenario: scenario.name, candidate: 'adaptive', baseline: best.baseline, missing: `no adaptive vs ${best.baseline} comparison` };
    targets.push(
      judge({
        ...where,
        id: idOf(`adaptive-cpu:${scenario.name}`),
        description: `${Runtime}, ${scenario.name}: adaptive server CPU/call <= 1.05x the cheaper of JSON and MessagePack always`,
        threshold: 1.05,
        rule: 'parity',
        metric: 'cpu',
      }),
      judge({
        ...where,
        id: idOf(`adaptive-client-cpu:${scenario.name}`),
        description: `${Runtime}, ${scenario.name}: adaptive client CPU/call no more than the cheaper of JSON and MessagePack always`,
        threshold: 1,
        metric: 'clientCpu',
      }),
    );
  }
  const media = mine.find((s) => s.name === 'media-5MiB/http-1');
  const missing = media ? 'no adaptive vs JSON comparison in media-5MiB/http-1' : `media-5MiB/http-1 did not run on ${Runtime}`;
  const mediaHttp = { scenario: 'media-5MiB/http-1', candidate: 'adaptive', baseline: 'json', missing };
  const what = `${Runtime}, 5 MiB media over HTTP, adaptive with native bytes vs JSON`;
  const cpuBound = MEDIA_CPU_BOUND[runtime] ?? 0.25;
  targets.push(
    judge({ ...mediaHttp, id: idOf('adaptive-media-cpu'), description: `${what}: server CPU/call <= ${cpuBound}x`, threshold: cpuBound, metric: 'cpu' }),
    judge({ ...mediaHttp, id: idOf('adaptive-media-wire'), description: `${what}: wire bytes <= 0.751x`, threshold: 0.751, metric: 'wire' }),
  );
  // Said, not skipped: stdio scenarios without an adaptive variant (a transport without mixed stdio).
  const stdio = mine.filter((s) => s.transport === 'stdio' && s.venue !== 'media');
  if (stdio.length > 0 && !stdio.some((s) => s.variants.some((v) => v.id === 'adaptive'))) {
    targets.push({
      id: idOf('adaptive-stdio'),
      description: `${Runtime}, adaptive over stdio (${stdio.length} scenarios) <= 1.05x the cheaper wire`,
      threshold: 1.05,
      runtime,
      status: 'not measured',
      note: "no adaptive variant ran over stdio (the stdio transports did not choose each message's encoding)",
    });
  }
  return targets;
}

/** The baseline of the stock-client comparison: the SDK's own JSON client against our server on its defaults. */
export const STOCK_CLIENT = 'stock-client';

/**
 * Issue 30's target: a user's server on this package's defaults costs no more CPU per call when its users
 * adopt our client on its defaults than when they keep the stock SDK client (within 1.05x, by the tie rule),
 * in every call scenario where both ran, per runtime.
 */
export function stockClientTargets(scenarios: readonly ScenarioResult[], runtime: string, mode: 'quick' | 'full' = 'full'): TargetResult[] {
  const Runtime = runtime === 'bun' ? 'Bun' : runtime === 'node' ? 'Node' : runtime;
  const targets: TargetResult[] = [];
  for (const scenario of scenarios.filter((s) => s.runtime === runtime)) {
    const kept = scenario.comparisons.find((c) => c.baseline === STOCK_CLIENT);
    if (!kept) continue;
    targets.push(
      ratioTarget(scenarios, runtime, {
        id: `${runtime === 'node' ? '' : `${runtime}:`}stock-client-cpu:${scenario.name}`,
        description: `${Runtime}, ${scenario.name}: our client on its defaults costs our server (on its defaults) <= 1.05x the server CPU/call of the stock SDK client`,
        threshold: 1.05,
        rule: 'parity',
        scenario: scenario.name,
        candidate: kept.candidate,
        baseline: STOCK_CLIENT,
        metric: 'cpu',
        missing: `no ${kept.candidate} vs ${STOCK_CLIENT} comparison`,
        mode,
      }),
    );
  }
  return targets;
}

/** The targets on one runtime's scenarios; ids carry the runtime after the first (Node's keep their names). */
function runtimeTargets(scenarios: readonly ScenarioResult[], runtime: string, mode: 'quick' | 'full'): TargetResult[] {
  const targets: TargetResult[] = [];
  const judge = (spec: Omit<RatioTargetSpec, 'mode'>) => ratioTarget(scenarios, runtime, { ...spec, mode });
  const Runtime = runtime === 'bun' ? 'Bun' : runtime === 'node' ? 'Node' : runtime;
  const idOf = (id: string) => (runtime === 'node' ? id : `${runtime}:${id}`);
  const media = scenarios.find((s) => s.runtime === runtime && s.name === 'media-5MiB/http-1');
  const missing = media ? 'no MessagePack-native vs JSON comparison in media-5MiB/http-1' : `media-5MiB/http-1 did not run on ${Runtime} (needs the media server and the HTTP transport)`;
  const what = `${Runtime}, 5 MiB media over HTTP, MessagePack + native bytes vs JSON on the same server`;
  const mediaHttp = { scenario: 'media-5MiB/http-1', candidate: 'msgpack-native', baseline: 'json', missing };
  const cpuBound = MEDIA_CPU_BOUND[runtime] ?? 0.25;
  targets.push(judge({ ...mediaHttp, id: idOf('media-cpu'), description: `${what}: server CPU/call <= ${cpuBound}x`, threshold: cpuBound, metric: 'cpu' }));
  targets.push(judge({ ...mediaHttp, id: idOf('media-wire'), description: `${what}: wire bytes <= 0.751x`, threshold: 0.751, metric: 'wire' }));
  targets.push(judge({ ...mediaHttp, id: idOf('media-rss'), description: `${what}: server peak RSS <= 0.6x`, threshold: 0.6, metric: 'peakRss' }));
  targets.push(judge({ ...mediaHttp, id: idOf('media-p50'), description: `${what}: client p50 <= 0.5x`, threshold: 0.5, metric: 'p50' }));

  // Over stdio the official server cannot send 5 MiB at all; ours must stay within 2x of raw bytes on the same pipe.
  const stdioMedia = scenarios.find((s) => s.runtime === runtime && s.name === 'media-5MiB/stdio');
  targets.push(
    judge({
      id: idOf('media-stdio-vs-raw'),
      description: `${Runtime}, 5 MiB media over stdio, MessagePack + native bytes: client p50 <= 2x raw length-prefixed bytes through the same pipe`,
      threshold: 2,
      scenario: 'media-5MiB/stdio',
      candidate: 'msgpack-native',
      baseline: 'raw',
      metric: 'p50',
      missing: stdioMedia ? 'no MessagePack-native vs raw comparison in media-5MiB/stdio' : `media-5MiB/stdio did not run on ${Runtime}`,
    }),
  );

  const objects = scenarios.filter((s) => s.runtime === runtime && s.venue === 'object');
  if (objects.length === 0) {
    targets.push({
      id: idOf('object-cpu'),
      description: `${Runtime}, object-heavy: MessagePack server CPU/call <= JSON`,
      threshold: 1,
      runtime,
      status: 'not measured',
      note: `no object scenario ran on ${Runtime}`,
    });
  }
  for (const scenario of objects) {
    targets.push(
      judge({
        id: idOf(`object-cpu:${scenario.name}`),
        description: `${Runtime}, ${scenario.name}: MessagePack server CPU/call <= JSON's (same server)`,
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
  const versusSdk = scenarios.filter((s) => s.runtime === runtime && s.transport === 'http' && (s.venue === 'object' || s.venue === 'small'));
  for (const scenario of versusSdk) {
    for (const [candidate, label] of [
      ['msgpack', 'MessagePack'],
      ['json', 'our JSON'],
    ] as const) {
      targets.push(
        judge({
          id: idOf(`sdk-cpu:${scenario.name}:${candidate}`),
          description: `${Runtime}, ${scenario.name}: ${label} server CPU/call <= the SDK's own HTTP server's`,
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
  targets.push(...adaptiveTargets(scenarios, runtime, mode));
  targets.push(...stockClientTargets(scenarios, runtime, mode));
  targets.push(...compressionTargets(scenarios, runtime, mode));
  // The revision issue's target: MCP 2026-07-28's stateless path costs the server no more CPU per call
  // than the 2025-11-25 session path, on each wire (SDK v2 on both ends).
  for (const scenario of scenarios.filter((s) => s.runtime === runtime && s.venue === 'revision')) {
    for (const wire of ['msgpack', 'json'] as const) {
      targets.push(
        judge({
          id: idOf(`revision-cpu:${scenario.name}:${wire}`),
          description: `${Runtime}, ${scenario.name}, ${wire === 'msgpack' ? 'MessagePack' : 'JSON'}: 2026-07-28 (stateless) server CPU/call <= the 2025-11-25 session path's`,
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

/**
 * Issue 41's targets, on each recorded real-traffic corpus the compression venue replayed (not on the
 * synthetic shapes, which compress unlike real traffic and are reported beside them): our client with
 * compression on receives <= 0.6x the bytes of the same replies as JSON + gzip level 6, headers included, at
 * <= 0.5x the server CPU per call of our server with gzip 6 added; the stock SDK client (it asks for gzip)
 * receives <= 1.1x. Bytes are those to the client (the replies, headers included): the requests are the
 * same calls on both sides.
 */
export function compressionTargets(scenarios: readonly ScenarioResult[], runtime: string, mode: 'quick' | 'full' = 'full'): TargetResult[] {
  const Runtime = runtime === 'bun' ? 'Bun' : runtime === 'node' ? 'Node' : runtime;
  const idOf = (id: string) => (runtime === 'node' ? id : `${runtime}:${id}`);
  const targets: TargetResult[] = [];
  const recorded = scenarios.filter((s) => s.runtime === runtime && s.venue === 'compression' && s.title.startsWith('recorded'));
  for (const scenario of recorded) {
    const judge = (candidate: string, metric: MetricKey, threshold: number, what: string) =>
      ratioTarget(scenarios, runtime, {
        id: idOf(`compression-${metric}:${scenario.name}:${candidate}`),
        description: `${Runtime}, ${scenario.name}: ${what} <= ${threshold}x JSON + gzip level 6's`,
        threshold,
        rule: 'bound',
        scenario: scenario.name,
        candidate,
        baseline: 'json-gzip6',
        metric,
        missing: `no ${candidate} vs json-gzip6 comparison`,
        mode,
      });
    targets.push(
      judge('compressed', 'received', 0.6, 'our client, compression on: bytes to the client (headers included)'),
      judge('compressed', 'cpu', 0.5, 'our client, compression on: server CPU/call'),
      judge('stock-client', 'received', 1.1, 'the stock SDK client (asks gzip) on our defaults + compression: bytes to the client (headers included)'),
    );
  }
  return targets;
}
