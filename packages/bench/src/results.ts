import type { RatioSummary, Verdict } from './stats.js';

/** The machine-readable result of a run (--json FILE). Bump SCHEMA on incompatible changes. */
export const SCHEMA = 'mcp-msgpack-bench/1';

export interface MetricInfo {
  label: string;
  unit: 'ms' | 'bytes' | 'calls/s' | 'ops/s';
  lowerIsBetter: boolean;
}

/** Every metric a scenario can report, with how to read it. */
export const METRICS = {
  cpu: { label: 'server CPU/call', unit: 'ms', lowerIsBetter: true },
  clientCpu: { label: 'client CPU/call', unit: 'ms', lowerIsBetter: true },
  peakRss: { label: 'server peak RSS', unit: 'bytes', lowerIsBetter: true },
  steadyRss: { label: 'server steady RSS', unit: 'bytes', lowerIsBetter: true },
  wire: { label: 'wire bytes/call', unit: 'bytes', lowerIsBetter: true },
  sent: { label: 'bytes/call to server', unit: 'bytes', lowerIsBetter: true },
  received: { label: 'bytes/call to client', unit: 'bytes', lowerIsBetter: true },
  p50: { label: 'client p50', unit: 'ms', lowerIsBetter: true },
  p95: { label: 'client p95', unit: 'ms', lowerIsBetter: true },
  p99: { label: 'client p99', unit: 'ms', lowerIsBetter: true },
  throughput: { label: 'calls/s', unit: 'calls/s', lowerIsBetter: false },
  codecTime: { label: 'encode+decode', unit: 'ms', lowerIsBetter: true },
  encodeTime: { label: 'encode', unit: 'ms', lowerIsBetter: true },
  decodeTime: { label: 'decode', unit: 'ms', lowerIsBetter: true },
  encodedBytes: { label: 'encoded bytes', unit: 'bytes', lowerIsBetter: true },
} as const satisfies Record<string, MetricInfo>;

export type MetricKey = keyof typeof METRICS;

export interface VariantResult {
  id: string;
  label: string;
  /** Typical value of each metric (median over rounds; latency percentiles over every call). */
  values: Partial<Record<MetricKey, number>>;
  /** Why this variant produced no (or not all) rounds, when it failed. */
  failed?: string;
}

export interface MetricComparison {
  ratio: RatioSummary;
  verdict: Verdict;
}

export interface ComparisonResult {
  candidate: string;
  baseline: string;
  /** candidate / baseline, computed per round. */
  metrics: Partial<Record<MetricKey, MetricComparison>>;
  /**
   * When this comparison rests on other rounds than the scenario's (quick mode's extra rounds of the pair,
   * runner/decider.ts): how many, and the fewest calls any of them had.
   */
  rounds?: number;
  callsPerRound?: number;
  /** How those rounds came about, said plainly (e.g. "4 extra rounds of 12 calls, the pair alone"). */
  note?: string;
}

export interface ScenarioResult {
  name: string;
  venue: 'codec' | 'text' | 'object' | 'numeric' | 'media' | 'small' | 'revision' | 'compression';
  title: string;
  runtime: string;
  transport: 'in-process' | 'stdio' | 'http';
  clients: number;
  rounds: number;
  callsPerRound: number;
  warmupCalls: number;
  /**
   * A warm-up counted in calls (runner/call-warmup.ts): whether it reaches the steady state, and each
   * variant's server CPU per call, ms, window by window of `window` calls (after the warm-up in ms).
   */
  warmup?: { steady: boolean; window: number; cpuMsPerCall: Record<string, number[]> };
  variants: VariantResult[];
  comparisons: ComparisonResult[];
  /** Failures and comparisons that could not be made, said plainly. */
  notes: string[];
  /**
   * Why this scenario's figures are not to be trusted: a child process serving it died (see
   * BenchResult.childExits). Its targets are then not judged.
   */
  untrusted?: string;
}

/** A child process that exited when the benchmark did not ask it to, or badly when it was stopped. */
export interface ChildExit {
  /** What it was: "server", "byte-counting relay", ... */
  role: string;
  runtime: string;
  /** The scenario and variant it served last, when it served one. */
  scenario?: string;
  variant?: string;
  pid: number;
  code: number | null;
  signal: string | null;
  /** 'unasked': before the benchmark asked it to stop; else it ended badly while being stopped. */
  when: 'unasked' | 'while being stopped';
  /** The last lines of its stderr (a bounded tail), when the benchmark kept it. */
  stderrTail: string[];
}

export interface TargetResult {
  id: string;
  description: string;
  /**
   * "met", "missed", "tie" (a target of no more than the baseline, whose ratio the rounds cannot tell from
   * 1.0: the benchmark's tie rule), "cannot judge" (a quick run whose rounds are too short, or fall on both
   * sides of a bound: the reason in `reason`), or "not measured" (with the reason in `note`).
   */
  status: 'met' | 'missed' | 'tie' | 'cannot judge' | 'not measured';
  /** A tie's side of 1.0: which way the median leans inside the noise. */
  lean?: 'better' | 'worse' | 'even';
  /** Why a tie is a tie ("range crosses 1.0"), or why the run cannot judge. */
  reason?: string;
  /** Not judged because a child process of its scenario died (ScenarioResult.untrusted, in `reason`). */
  untrusted?: true;
  measured?: number;
  threshold: number;
  note?: string;
  /** For a target on a ratio: the runtime and scenario, the comparison and the metric it reads. */
  runtime?: string;
  scenario?: string;
  candidate?: string;
  baseline?: string;
  metric?: MetricKey;
}

export interface Environment {
  cpu: string;
  cores: number;
  memoryBytes: number;
  os: string;
  runtimes: Record<string, string>;
  packages: Record<string, string>;
}

export interface BenchResult {
  schema: typeof SCHEMA;
  mode: 'quick' | 'full';
  command: string;
  startedAt: string;
  durationMs: number;
  environment: Environment;
  noiseBand: number;
  /** An A/B run (--baseline DIR): the other build's servers. Each comparison is then variant / variant@baseline. */
  baseline?: string;
  scenarios: ScenarioResult[];
  targets: TargetResult[];
  /** Venues or variants that could not run, and why. */
  skipped: string[];
  /** Child processes that died unasked (or badly while stopped): any makes the run exit non-zero. */
  childExits?: ChildExit[];
}
