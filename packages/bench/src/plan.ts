import { tmpdir } from 'node:os';
import { scenarioSelected, type BenchOptions, type Venue } from './options.js';
import type { CallScenario } from './runner/rounds.js';
import { quickVariants, type Budget } from './scenarios/calls.js';
import { codecPayloads, type CodecPayload } from './scenarios/codec.js';
import { mediaScenarios } from './scenarios/media.js';
import { numericScenarios } from './scenarios/numeric.js';
import { objectScenarios } from './scenarios/object.js';
import { smallScenarios } from './scenarios/small.js';
import { revisionScenarios } from './scenarios/revision.js';
import { textScenarios } from './scenarios/text.js';
import { httpTransportAvailable, mediaServerAvailable } from './servers/optional.js';

export interface Plan {
  codec: { payloads: CodecPayload[]; rounds: number; timeMs: number };
  calls: CallScenario[];
  skipped: string[];
  /** Rounds in the whole plan, for the progress display. */
  steps: number;
}

/** Tiny budgets for the test suite's smoke run: every scenario for a moment. */
export interface PlanTuning {
  smoke?: boolean;
  mediaDir?: string;
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
  return { rounds: 4, roundMs: 150, warmupMs: 100, reusedWarmupMs: 40, minCalls: 3, maxCalls: 1000 };
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
      if (transport === 'http' && httpOurs) calls.push(...revisionScenarios(clients, budget));
      if (!many || full || smoke) calls.push(...textScenarios(full, transport, clients, httpOurs, budget));
      calls.push(...objectScenarios(full, transport, clients, httpOurs, budget).filter((s) => !many || full || smoke || s.name.startsWith('object-50KB/')));
      calls.push(...numericScenarios(full || smoke, transport, clients, httpOurs, budget, !many || full));
      if (media) {
        const all = await mediaScenarios(full, transport, clients, httpOurs, budget, tuning.mediaDir, smoke);
        // Quick mode over HTTP: 5 MiB with one client (the targets), 1 MiB with sixteen.
        calls.push(...all.filter((s) => full || smoke || transport === 'stdio' || (many ? s.name.startsWith('media-1MiB/') : !s.name.startsWith('media-1MiB'))));
      }
    }
  }
  const selected = calls.filter((s) => scenarioSelected(options.scenarios, s.venue, s.name)).map((s) => (full || smoke || s.venue === 'media' || s.venue === 'revision' ? s : quickVariants(s)));
  const payloads = codecPayloads(full).filter((p) => scenarioSelected(options.scenarios, 'codec', `codec/${p.name}`));
  const codecRounds = smoke ? 1 : full ? 7 : 3;
  const codec = { payloads, rounds: codecRounds, timeMs: smoke ? 5 : full ? 300 : 30 };
  const steps = payloads.length * codecRounds + selected.reduce((sum, s) => sum + s.rounds, 0);
  return { codec, calls: selected, skipped, steps };
}

/** Every scenario this mode and these transports can run, whatever the --scenario filters (to check them). */
export async function availableScenarios(options: BenchOptions): Promise<Array<{ venue: Venue; name: string }>> {
  // The media directory is only named in the scenarios, not read, while planning.
  const plan = await buildPlan({ ...options, scenarios: [] }, { mediaDir: tmpdir() });
  return [...plan.codec.payloads.map((p) => ({ venue: 'codec' as const, name: `codec/${p.name}` })), ...plan.calls.map((s) => ({ venue: s.venue, name: s.name }))];
}
