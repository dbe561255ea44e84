import { parseArgs } from 'node:util';

export type Venue = 'codec' | 'text' | 'object' | 'numeric' | 'media' | 'small' | 'revision' | 'compression';
export const VENUES: readonly Venue[] = ['codec', 'text', 'object', 'numeric', 'media', 'small', 'revision', 'compression'];

export interface BenchOptions {
  mode: 'quick' | 'full';
  /** Scenario filters: a venue name ("object") or the start of a scenario name ("object-1MB/stdio"). */
  scenarios: string[];
  runtimes: Array<'node' | 'bun'>;
  transports: Array<'stdio' | 'http'>;
  jsonFile?: string;
  reportFile?: string;
  /** Internal: this process is a child run for one runtime; write results here and print nothing else. */
  childResultFile?: string;
  /** Measure the SDK's HTTP server exactly as published, leak included (see servers/sdk-leak.ts). */
  sdkAsPublished: boolean;
  /** Another checkout or build of this repository: run each scenario A/B, its servers against ours (baseline.ts). */
  baseline?: string;
  /** Print every table (values, ratios, verdicts) after the summary. */
  details: boolean;
  /** Measure JSON against MessagePack per reply shape and size (calibrate.ts) instead of the scenarios. */
  calibrate: boolean;
  help: boolean;
  version: boolean;
}

export const HELP = `Usage: mcp-msgpack-bench [options]

Measures, on this machine, what the MessagePack wire (msgpack-v1) and native bytes change for an MCP
server, side by side with JSON and the stock SDK transports, and says plainly where they do not help.

Options:
  --full                 Longer and larger run (more rounds, more calls, 1 MB text, more concurrency
                         cases). The default is the quick mode, under 2 minutes on a 2-core machine.
  --scenario NAME        Run only matching scenarios. NAME is a venue, one kind of workload (codec,
                         text, object, numeric, media, small, revision),
                         or the start of a scenario name as printed in the table (e.g. object-1MB/stdio,
                         media-5MiB/http-1). Repeat the option or give a comma-separated list.
  --scenario scale       Opt-in, run on its own: 1 vs 3 instances of examples/scale/server.mjs behind nginx
                         with the Redis event store, 1 without a store, 1 reaching Redis through a
                         unix socket and 1 storing every result whole (above maxEventBytes), JSON vs
                         MessagePack, a small call and a 5 MiB native-bytes read (calls/s, server and
                         redis-server CPU/call).
                         Needs redis-server, nginx and a checkout of the repository; skipped otherwise.
  --scenario bridge      Opt-in, run on its own: mcp-msgpack-bridge both ways. Host to remote: a JSON
                         host direct to the media server over HTTP, through the bridge, and through
                         mcp-remote when installed; reverse (--serve): the SDK's and our HTTP clients
                         through the bridge to stdio JSON children, and a stdio client without it. A
                         5 MiB read and a small call: server, child and bridge CPU, network bytes, p50.
                         Needs a checkout of the repository (the bridge); skipped otherwise.
  --scenario compression Opt-in (quick mode; in --full too), HTTP: a recorded session with the official
                         filesystem server (corpus/) and the synthetic shapes replayed as tool calls:
                         our server's JSON without a coding, with gzip level 6 added (as a proxy would),
                         the stock SDK client (asks gzip) and our client on our defaults with compression
                         on; wire bytes (headers included) and server CPU per call, the issue 41 targets.
  --scenario codings     Opt-in, run on its own, in this process: each recorded and synthetic reply coded on
                         its own by each coding and level (gzip, Brotli, zstd, windows), bytes and coder
                         CPU; a candidate dictionary; resident memory per stream context.
  --scenario link        Opt-in, run on its own: latency over a bandwidth-limited link (a throttling TCP
                         relay on loopback, 10 and 100 Mbit/s, and 10 Mbit/s + 40 ms round trip): a session's opening (initialize +
                         tools/list) of the bench tool server and of the recorded filesystem server (its
                         13.7 KB tools/list), and a 1 MB object result, the stock SDK server and client
                         against ours on defaults with compression on, on each --runtime (issue 41's
                         target: <= 0.4x at 10 Mbit/s).
  --scenario readers     Opt-in, run on its own, in this process and runtime: the stdio readers alone, a
                         5 MiB message and 1,000 small ones arriving in 64 KiB chunks: the SDK's
                         ReadBuffer against our LineReader and FrameReader with their codecs.
  --runtime node|bun     Run the servers and clients under this runtime (default: node). Repeat or give
                         "node,bun" to measure both; bun is taken from the repository's node_modules/bun
                         or from PATH.
  --transport stdio|http Only this transport (default: both). Repeatable or comma-separated.
  --baseline DIR         A/B run: DIR is another checkout or build of this repository (its root, built
                         with npm run build). Each selected scenario runs every variant of our server
                         twice, on this build's server and on DIR's (same client, this build's), rounds
                         alternating both, and reports this / baseline per variant, round by round, with
                         the usual verdicts. The SDK's and the official servers are left out (DIR cannot
                         change them), and so is the in-process codec venue.
  --calibrate            Instead of the scenarios: encode + decode of one reply, JSON against MessagePack,
                         per shape and size (text, prose, records, short strings, numbers), on each
                         --runtime: the figures the per-message encoding policy's thresholds rest on
                         (the transport's SPEC.md 9.6). --full for more sizes and rounds.
  --details              Print every measured value, ratio and verdict after the summary (always in --json
                         and --report).
  --json FILE            Also write the machine-readable results (schema "mcp-msgpack-bench/1") to FILE.
  --report FILE          Also write a self-contained HTML report with charts (no external assets) to FILE.
  --sdk-as-published     Measure the SDK's own HTTP server exactly as published. By default the benchmark
                         releases what its JSON-response mode keeps after each reply (an SDK leak,
                         typescript-sdk#2559, that defers garbage collection and grows memory without
                         bound), as the SDK's own fix does, so both stacks are compared in steady state.
  -h, --help             Show this help.
  --version              Print the version.

What it measures, per scenario and variant:
  server CPU/call        user + system CPU time of the server process (all threads) per call, from /proc
  server peak RSS        highest resident memory of the server process during a round (VmHWM, reset
                         before each round)
  server steady RSS      resident memory right after a round
  wire bytes/call        bytes on the pipe or socket, both directions (HTTP: headers and gzip included)
  client p50/p95/p99     latency of each call as the client sees it
  calls/s                calls completed per second of wall time

How to read the verdicts: every comparison is candidate / baseline, computed per round (rounds alternate
the variants so drift hits all of them), and reported as the median ratio with its min..max over rounds.
"wins" means every round favoured the candidate and the median is beyond the noise band (±5%); "loses"
the same against it; anything else is "ties". Lower is better for costs, higher for calls/s.
`;

/** An error the user can fix (a bad option, a missing runtime, a bad path): said in one line, no stack. */
export class UsageError extends Error {}

function list(values: string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      full: { type: 'boolean', default: false },
      quick: { type: 'boolean', default: false },
      scenario: { type: 'string', multiple: true },
      runtime: { type: 'string', multiple: true },
      transport: { type: 'string', multiple: true },
      json: { type: 'string' },
      report: { type: 'string' },
      'child-result': { type: 'string' },
      'sdk-as-published': { type: 'boolean', default: false },
      baseline: { type: 'string' },
      details: { type: 'boolean', default: false },
      calibrate: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.full && values.quick) throw new UsageError('--full and --quick cannot be combined');
  if (values.baseline !== undefined && values.report !== undefined) throw new UsageError('--report draws the wire comparisons; an A/B run (--baseline) writes its results with --json');
  const runtimes = list(values.runtime);
  for (const r of runtimes) if (r !== 'node' && r !== 'bun') throw new UsageError(`--runtime must be node or bun, not "${r}"`);
  const transports = list(values.transport);
  for (const t of transports) if (t !== 'stdio' && t !== 'http') throw new UsageError(`--transport must be stdio or http, not "${t}"`);
  return {
    mode: values.full ? 'full' : 'quick',
    scenarios: list(values.scenario),
    runtimes: runtimes.length > 0 ? [...new Set(runtimes as Array<'node' | 'bun'>)] : ['node'],
    transports: transports.length > 0 ? [...new Set(transports as Array<'stdio' | 'http'>)] : ['stdio', 'http'],
    jsonFile: values.json,
    reportFile: values.report,
    childResultFile: values['child-result'],
    sdkAsPublished: values['sdk-as-published'] ?? false,
    ...(values.baseline !== undefined ? { baseline: values.baseline } : {}),
    details: values.details ?? false,
    calibrate: values.calibrate ?? false,
    help: values.help ?? false,
    version: values.version ?? false,
  };
}

/** The --scenario filters that select none of the scenarios this run could do (a typo, or another mode's). */
export function unknownScenarioFilters(filters: readonly string[], available: ReadonlyArray<{ venue: Venue; name: string }>): string[] {
  return filters.filter((f) => !available.some((s) => scenarioSelected([f], s.venue, s.name)));
}

/** Whether a scenario (by venue and name) passes the --scenario filters. */
export function scenarioSelected(filters: readonly string[], venue: Venue, name: string): boolean {
  if (filters.length === 0) return true;
  return filters.some((f) => f === venue || name === f || name.startsWith(f + '/') || name.startsWith(f + '-'));
}
