import { tmpdir } from 'node:os';
import { scenarioSelected, type BenchOptions, type Venue } from './options.js';
import type { CallScenario } from './runner/rounds.js';
import { quickVariants, type Budget } from './scenarios/calls.js';
import { codecPayloads, type CodecBudget, type CodecPayload } from './scenarios/codec.js';
import { mediaScenarios } from './scenarios/media.js';
import { numericScenarios } from './scenarios/numeric.js';
import { objectScenarios } from './scenarios/object.js';
import { smallScenarios } from './scenarios/small.js';
import { revisionScenarios } from './scenarios/revision.js';
import { compressionScenarios, compressionWarmup } from './scenarios/compression.js';
import { textScenarios } from './scenarios/text.js';
import { httpTransportAvailable, mediaServerAvailable } from './servers/optional.js';
import { MIN_CALLS_TO_JUDGE } from './judge.js';
import type { DeciderSettings } from './runner/decider.js';
import { STOCK_CLIENT } from './targets.js';
import { baselineServers, withBaseline } from './baseline.js';

export interface Plan {
  codec: CodecBudget & { payloads: CodecPayload[] };
  calls: CallScenario[];
  skipped: string[];
  /** Rounds in the whole plan, for the progress display. */
  steps: number;
  /** Quick mode: extra rounds for the stock-client comparisons its rounds leave undecided, within budgetMs. */
  decider?: Omit<DeciderSettings, 'budget'> & { budgetMs: number };
}

/**
 * Quick mode's extra rounds (runner/decider.ts): the stock-client target (<= 1.05x server CPU), rounds of at
 * least the judge's floor of calls, up to 12 rounds a comparison, 15 s for the whole run. The smoke run
 * takes the same path with rounds of a few calls.
 */
function deciderFor(mode: 'quick' | 'full', smoke: boolean): Plan['decider'] {
  const target = { baseline: STOCK_CLIENT, threshold: 1.05, metric: 'cpu' as const };
  if (smoke) return { ...target, minCalls: 2, roundMs: 0, maxCalls: 4, firstRounds: 2, maxRounds: 4, budgetMs: 60_000 };
  if (mode === 'full') return undefined;
  return { ...target, minCalls: MIN_CALLS_TO_JUDGE, roundMs: 150, maxCalls: 1000, firstRounds: 4, maxRounds: 12, budgetMs: 15_000 };
}

/** Tiny budgets for the test suite's smoke run: every scenario for a moment. */
export interface PlanTuning {
  smoke?: boolean;
  mediaDir?: string;
  /** Plan what quick mode runs only when named, too (to check --scenario filters against). */
  optIn?: boolean;
}

/** Round lengths per mode; quick mode keeps the whole run under 2 minutes on a 2-core machine. */
function budgetFor(mode: 'quick' | 'full', smoke: boolean): Budget {
  if (smoke) return { rounds: 2, roundMs: 0, warmupMs: 0, minCalls: 2, maxCalls: 16 };
  // At least 12 calls a round in full mode: slow calls (5 MiB media) vary with when large buffers are collected,
  // and rounds of 4 such calls gave ratios that moved 2x between runs.
  if (mode === 'full') return { rounds: 6, roundMs: 500, warmupMs: 500, minCalls: 12, maxCalls: 5000 };
  // The warm-up's calls are not measured; it times a call to size the rounds (roundMs sets their length, so
  // the calls a round the judge counts). A server a previous scenario warmed needs only the new payload's first calls (its
  // generation, cached, and the time per call that sizes the rounds). Shorter than before (150 ms for
  // every variant) to pay for the stock-client variants.
  // 120 ms rounds (150 before) pay for the extra rounds that decide the stock client's target.
  return { rounds: 4, roundMs: 120, warmupMs: 100, reusedWarmupMs: 40, minCalls: 3, maxCalls: 1000 };
}

export async function buildPlan(options: BenchOptions, tuning: PlanTuning = {}): Promise<Plan> {
  const full = options.mode === 'full';
  const smoke = tuning.smoke ?? false;
  const skipped: string[] = [];
  const calls: CallScenario[] = [];
  const httpOurs = await httpTransportAvailable();
  const media = await mediaServerAvailable();
  if (options.transports.includes('http') && !httpOurs) {
    skipped.push("MessagePack over HTTP: the transport package does not export its HTTP transport yet; HTTP scenarios compare the SDK's JSON with JSON + gzip only");
  }
  if (!media) skipped.push('media venue: mcp-filesystem-media-server is not built yet (no createFilesystemServer)');

  for (const transport of options.transports) {
    const clientCounts = transport === 'stdio' ? [1] : smoke ? [1, 16] : full ? [1, 16] : [1, 16];
    for (const clients of clientCounts) {
      const budget = budgetFor(options.mode, smoke);
      const many = clients > 1;
      if (many && smoke) {
        // The smoke test only needs the concurrent path to work once.
        calls.push(...smallScenarios(transport, clients, httpOurs, budget));
        continue;
      }
      // With 16 clients, quick mode keeps to the venues where concurrency changes the picture.
      // Ordered so that servers reused from one scenario to the next see growing payloads; with 16 clients,
      // quick mode keeps to one case per venue where concurrency changes the picture.
      calls.push(...smallScenarios(transport, clients, httpOurs, budget));
      if (!many || full || smoke) calls.push(...textScenarios(full, transport, clients, httpOurs, budget));
      calls.push(...objectScenarios(full, transport, clients, httpOurs, budget).filter((s) => !many || full || smoke || s.name.startsWith('object-50KB/')));
      calls.push(...numericScenarios(full || smoke, transport, clients, httpOurs, budget, !many || full));
      // After the tool server's scenarios, whose servers the pool keeps from one to the next: the revision
      // venue runs servers of its own, and between them it made every tool server start again. Quick mode
      // runs it only when --scenario names it (it compares MCP revisions, not wires), with one client.
      if (transport === 'http' && httpOurs && (full || smoke || (!many && (tuning.optIn || named(options.scenarios, 'revision'))))) calls.push(...revisionScenarios(clients, budget));
      // The compression venue (issue 41): HTTP with one client, only when --scenario names it (or --full); not
      // in the smoke run of every venue, which has a test of its own (test/compression.test.ts).
      if (transport === 'http' && httpOurs && !many && (full || tuning.optIn || named(options.scenarios, 'compression'))) calls.push(...compressionScenarios(budget, compressionWarmup(options.mode, smoke)));
      if (media) {
        const all = await mediaScenarios(full, transport, clients, httpOurs, budget, tuning.mediaDir, smoke);
        // Quick mode over HTTP: 5 MiB with one client (the targets rest on it); media with 16 clients and the
        // resource_link scenarios (no target reads them) are --full's.
        const quickMedia = (name: string) => !name.includes('-link') && (transport === 'stdio' || (!many && !name.startsWith('media-1MiB')));
        calls.push(...all.filter((s) => full || smoke || quickMedia(s.name)));
      }
    }
  }
  const chosen = calls
    .filter((s) => scenarioSelected(options.scenarios, s.venue, s.name))
    .map((s) => (full || smoke || s.venue === 'media' || s.venue === 'revision' || s.venue === 'compression' ? s : quickVariants(s)));
  // An A/B run (--baseline): every scenario's servers of ours against the baseline build's; the codec venue
  // runs in this process, on this build's code only, so it has nothing to compare there.
  const servers = options.baseline === undefined ? undefined : baselineServers(options.baseline);
  const selected = servers ? chosen.map((s) => withBaseline(s, servers)) : chosen;
  const payloads = servers ? [] : codecPayloads(full).filter((p) => scenarioSelected(options.scenarios, 'codec', `codec/${p.name}`));
  if (servers && scenarioSelected(options.scenarios, 'codec', 'codec/')) skipped.push('codec venue: it runs in this process, on this build only; --baseline compares servers');
  const codecRounds = smoke ? 1 : full ? 7 : 3;
  const codec = { payloads, rounds: codecRounds, timeMs: smoke ? 5 : full ? 300 : 30, minIterations: full ? 5 : 2, codecs: full || smoke ? ('all' as const) : ('shipped' as const) };
  const steps = payloads.length * codecRounds + selected.reduce((sum, s) => sum + s.rounds, 0);
  // The extra rounds decide the stock client's target, which an A/B run does not read.
  const decider = servers ? undefined : deciderFor(options.mode, smoke);
  return { codec, calls: selected, skipped, steps, ...(decider ? { decider } : {}) };
}

/** Whether a --scenario filter names this venue or one of its scenarios (not: no filter at all). */
function named(filters: readonly string[], venue: Venue): boolean {
  return filters.some((f) => f === venue || f.startsWith(`${venue}-`));
}

/** Every scenario this mode and these transports can run, whatever the --scenario filters (to check them). */
export async function availableScenarios(options: BenchOptions): Promise<Array<{ venue: Venue; name: string }>> {
  // The media directory is only named in the scenarios, not read, while planning.
  const plan = await buildPlan({ ...options, scenarios: [] }, { mediaDir: tmpdir(), optIn: true });
  return [...plan.codec.payloads.map((p) => ({ venue: 'codec' as const, name: `codec/${p.name}` })), ...plan.calls.map((s) => ({ venue: s.venue, name: s.name }))];
}
