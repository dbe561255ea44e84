#!/usr/bin/env node
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchVersion, currentRuntime, describeEnvironment } from './environment.js';
import { HELP, parseOptions, unknownScenarioFilters, UsageError, VENUES, type BenchOptions } from './options.js';
import { onInterrupt, runInterruptCleanups } from './interrupt.js';
import { checkOutputPath } from './output-paths.js';
import { availableScenarios } from './plan.js';
import { renderCalibration, runCalibration } from './calibrate.js';
import { wrapWords } from './report/format.js';
import { renderHtml } from './report/html.js';
import { StreamProgress, SilentProgress } from './report/progress.js';
import { SUMMARY_WIDTH } from './report/summary.js';
import { renderText } from './report/table.js';
import { renderScale, runScaleScenario } from './scenarios/scale.js';
import { renderBridge, runBridgeScenario } from './scenarios/bridge.js';
import { renderReaders, runReaders } from './scenarios/readers.js';
import { runCodings } from './compression/codings.js';
import { renderLink, runLinkScenario } from './scenarios/link.js';
import { SCHEMA, type BenchResult, type ChildExit } from './results.js';
import { runInThisRuntime, type RuntimeRun } from './run.js';
import { takeChildExits } from './runner/child-watch.js';
import { childExitText } from './report/child-exits.js';
import { runtimeExecutable, runtimeVersion } from './runtimes.js';
import { NOISE_BAND } from './stats.js';
import { evaluateTargets } from './targets.js';

async function main(): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`mcp-msgpack-bench: ${(error as Error).message}\n\nRun mcp-msgpack-bench --help for the options.\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (options.version) {
    process.stdout.write(`mcp-msgpack-bench ${benchVersion()}\n`);
    return 0;
  }
  if (options.calibrate) return calibrate(options);
  // Opt-in, on its own: it needs redis-server, nginx and a checkout of the repository.
  if (options.scenarios.includes('scale')) return runScale(options);
  if (options.scenarios.includes('bridge')) return runBridge(options);
  if (options.scenarios.includes('codings')) return codings(options);
  if (options.scenarios.includes('link')) return link(options);
  if (options.scenarios.includes('readers')) {
    const here = currentRuntime();
    process.stdout.write(`\n${renderReaders(await runReaders(options.mode === 'full', `${here.name} ${here.version}`, new StreamProgress(process.stderr)))}`);
    return 0;
  }
  const unknownScenarios = await unknownFilterMessage(options);
  if (unknownScenarios) {
    process.stderr.write(unknownScenarios);
    return 2;
  }
  // Everything a user can get wrong is found before the first measurement: output paths, the runtimes.
  if (options.jsonFile) checkOutputPath('--json', options.jsonFile);
  if (options.reportFile) checkOutputPath('--report', options.reportFile);
  for (const runtime of options.runtimes) runtimeExecutable(runtime);
  // Read by the benchmark's server children (servers/sdk-leak.ts), which inherit the environment.
  if (options.sdkAsPublished) process.env.MCP_MSGPACK_BENCH_SDK_AS_PUBLISHED = '1';
  if (options.childResultFile) {
    // A child run for one runtime: progress on stderr, results to the file (so far, if interrupted).
    const file = options.childResultFile;
    const sofar: RuntimeRun = { runtime: currentRuntime().name, version: currentRuntime().version, scenarios: [], skipped: [] };
    onSignals(() => {
      runInterruptCleanups();
      writeFileSync(file, JSON.stringify({ ...sofar, skipped: [...sofar.skipped, `${sofar.runtime}: interrupted`] }));
      process.exit(130);
    });
    writeFileSync(file, JSON.stringify(await runInThisRuntime(options, new StreamProgress(process.stderr), {}, sofar)));
    return 0;
  }

  const state: RunState = { options, started: Date.now(), runs: [], childRunning: false, interrupted: false };
  onSignals(() => {
    if (state.interrupted || !state.childRunning) {
      // In this process: what runs now cannot be awaited; clean up, say what was measured, leave.
      runInterruptCleanups();
      report(state, true);
      process.exit(130);
    }
    // The child run (which a terminal's Ctrl-C reaches too) writes what it measured and exits; main() reports.
    state.interrupted = true;
    runningChild?.kill('SIGINT');
  });
  const here = currentRuntime();
  for (const runtime of options.runtimes) {
    if (state.interrupted) break;
    if (runtime === here.name) {
      const sofar: RuntimeRun = { runtime: here.name, version: here.version, scenarios: [], skipped: [] };
      state.runs.push(sofar);
      await runInThisRuntime(options, new StreamProgress(process.stderr), {}, sofar);
    } else {
      state.childRunning = true;
      state.runs.push(await runInChild(runtime, options));
      state.childRunning = false;
    }
  }
  const died = report(state, state.interrupted);
  return state.interrupted ? 130 : died ? CHILD_DIED : 0;
}

/**
 * The exit status of a run in which a child process died unasked (runner/child-watch.ts): its figures were
 * printed, but a script must not take them, nor the run, for sound.
 */
const CHILD_DIED = 3;

/** The child run for another runtime, while it runs. */
let runningChild: ChildProcess | undefined;

interface RunState {
  options: BenchOptions;
  started: number;
  runs: RuntimeRun[];
  childRunning: boolean;
  interrupted: boolean;
}

function onSignals(handler: () => void): void {
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

/**
 * Prints the summary of what was measured; writes --json and --report unless the run was interrupted.
 * Returns whether a child process died unasked.
 */
function report(state: RunState, interrupted: boolean): boolean {
  const { options, runs } = state;
  const scenarios = runs.flatMap((r) => r.scenarios);
  const childExits = runs.flatMap((r) => r.childExits ?? []);
  const partial = {
    schema: SCHEMA,
    mode: options.mode,
    command: commandLine(),
    startedAt: new Date(state.started).toISOString(),
    durationMs: Date.now() - state.started,
    environment: describeEnvironment(Object.fromEntries(runs.map((r) => [r.runtime, r.version]))),
    noiseBand: NOISE_BAND,
    ...(options.baseline !== undefined ? { baseline: options.baseline } : {}),
    scenarios,
    skipped: [...runs.flatMap((r) => r.skipped), ...(interrupted ? ['interrupted: the scenarios above are those that finished before the signal'] : [])],
    ...(childExits.length > 0 ? { childExits } : {}),
  } satisfies Omit<BenchResult, 'targets'>;
  // An interrupted run's duration says nothing about how long the whole run takes.
  // An A/B run compares builds, not wires: the targets (read from the wire comparisons) are not its question.
  const targets =
    options.baseline !== undefined ? [] : evaluateTargets(partial).map((t) => (interrupted && t.id === 'quick-under-2-minutes' ? { ...t, status: 'not measured' as const, note: 'the run was interrupted' } : t));
  const result: BenchResult = { ...partial, targets };
  if (interrupted) process.stdout.write(`\nINTERRUPTED after ${scenarios.length} finished scenarios; temporary files removed.\n`);
  process.stdout.write('\n' + renderText(result, { details: options.details }));
  if (childExits.length > 0) process.stdout.write(`\n${childExits.length} child process${childExits.length > 1 ? 'es' : ''} died unasked (above): exit status ${CHILD_DIED}.\n`);
  if (interrupted) {
    if (options.jsonFile || options.reportFile) process.stdout.write('an interrupted run writes neither --json nor --report\n');
    return childExits.length > 0;
  }
  if (options.jsonFile) {
    writeFileSync(options.jsonFile, JSON.stringify(result, null, 2) + '\n');
    process.stdout.write(`results written to ${options.jsonFile}\n`);
  }
  if (options.reportFile) {
    writeFileSync(options.reportFile, renderHtml(result));
    process.stdout.write(`report written to ${options.reportFile}\n`);
  }
  return childExits.length > 0;
}

/** An opt-in scenario's end: prints each child that died unasked; CHILD_DIED when one did, else 0. */
function childExitStatus(): number {
  const exits = takeChildExits();
  for (const exit of exits) process.stdout.write(`\n${childExitText(exit)}\n`);
  return exits.length > 0 ? CHILD_DIED : 0;
}

/** Says which --scenario filters match nothing and lists the valid names; undefined when all match. */
async function unknownFilterMessage(options: BenchOptions): Promise<string | undefined> {
  const available = await availableScenarios(options);
  const unknown = unknownScenarioFilters(options.scenarios, available);
  if (unknown.length === 0) return undefined;
  const names = [...new Set(available.map((s) => s.name))];
  return [
    `mcp-msgpack-bench: no scenario matches --scenario ${unknown.map((f) => JSON.stringify(f)).join(', ')} (${options.mode} mode, ${options.transports.join(' and ')}).`,
    wrapWords(`Give a venue (${VENUES.join(', ')}) or the start of one of these names:`, SUMMARY_WIDTH),
    wrapWords(names.join(', '), SUMMARY_WIDTH, '  '),
    '',
  ].join('\n');
}

async function runScale(options: BenchOptions): Promise<number> {
  const full = options.mode === 'full';
  const rounds = full ? 4 : 2;
  const rows = await runScaleScenario({ rounds, smallCalls: full ? 1_500 : 300, mediaCalls: full ? 60 : 12, log: (line) => process.stderr.write(`${line}\n`) });
  if (rows) process.stdout.write('\n' + renderScale(rows, rounds));
  return childExitStatus();
}

/** --calibrate on each --runtime: in this process for this runtime, in a child of the CLI for another. */
async function calibrate(options: BenchOptions): Promise<number> {
  for (const runtime of options.runtimes) runtimeExecutable(runtime);
  const here = currentRuntime();
  for (const runtime of options.runtimes) {
    if (runtime !== here.name) {
      const args = [fileURLToPath(import.meta.url), '--calibrate', '--runtime', runtime, ...(options.mode === 'full' ? ['--full'] : [])];
      const code = await new Promise<number | null>((resolve, reject) => spawn(runtimeExecutable(runtime), args, { stdio: 'inherit' }).once('error', reject).once('exit', resolve));
      if (code !== 0) return code ?? 1;
      continue;
    }
    const results = await runCalibration(options.mode === 'full', `${here.name} ${here.version}`, new StreamProgress(process.stderr));
    process.stdout.write(`\n${renderCalibration(results)}`);
    if (options.jsonFile) writeFileSync(options.jsonFile, `${JSON.stringify({ schema: SCHEMA, calibration: results }, null, 2)}\n`);
  }
  return 0;
}

/**
 * An opt-in scenario on each --runtime: in this process for this runtime, in a child of the CLI for another
 * (as --calibrate), the child given the same scenario and mode.
 */
async function onEachRuntime(options: BenchOptions, scenario: string, runHere: () => Promise<void>): Promise<number> {
  for (const runtime of options.runtimes) runtimeExecutable(runtime);
  const here = currentRuntime();
  for (const runtime of options.runtimes) {
    if (runtime !== here.name) {
      const args = [fileURLToPath(import.meta.url), '--scenario', scenario, '--runtime', runtime, ...(options.mode === 'full' ? ['--full'] : [])];
      const code = await new Promise<number | null>((resolve, reject) => spawn(runtimeExecutable(runtime), args, { stdio: 'inherit' }).once('error', reject).once('exit', resolve));
      if (code !== 0) return code ?? 1;
      continue;
    }
    await runHere();
    const status = childExitStatus();
    if (status !== 0) return status;
  }
  return 0;
}

/** --scenario codings on each --runtime. */
function codings(options: BenchOptions): Promise<number> {
  return onEachRuntime(options, 'codings', async () => {
    process.stdout.write(`\n${await runCodings({ full: options.mode === 'full', log: (line) => process.stderr.write(`${line}\n`) })}`);
  });
}

/** --scenario link on each --runtime: the client, the relay and both servers on that runtime. */
function link(options: BenchOptions): Promise<number> {
  // The opening is a few round trips of CPU on a loaded machine: 3 rounds moved its ratio from 0.4x to 2.8x.
  const rounds = options.mode === 'full' ? 15 : 7;
  const links = [
    { mbit: 10, rttMs: 0 },
    { mbit: 100, rttMs: 0 },
    // What a round trip saved is worth on a distant link (the relay alone adds none).
    { mbit: 10, rttMs: 40 },
  ];
  return onEachRuntime(options, 'link', async () => {
    const rows = await runLinkScenario({ rounds, links, log: (line) => process.stderr.write(`${line}\n`) });
    const here = currentRuntime();
    process.stdout.write(`\n${renderLink(rows, rounds, `${here.name} ${here.version}`)}`);
  });
}

async function runBridge(options: BenchOptions): Promise<number> {
  const full = options.mode === 'full';
  const settings = { rounds: full ? 5 : 2, bigCalls: full ? 4 : 1, smallCalls: full ? 60 : 20 };
  const paths = await runBridgeScenario({ ...settings, log: (line) => process.stderr.write(`${line}\n`) });
  if (paths) process.stdout.write(`\n${renderBridge(paths, settings)}`);
  return childExitStatus();
}

function commandLine(): string {
  return ['mcp-msgpack-bench', ...process.argv.slice(2)].join(' ');
}

/** Re-runs this CLI under another runtime for the measurement part and reads back its results. */
async function runInChild(runtime: 'node' | 'bun', options: BenchOptions): Promise<RuntimeRun> {
  const executable = runtimeExecutable(runtime);
  const dir = mkdtempSync(join(tmpdir(), 'mcp-msgpack-bench-'));
  const forget = onInterrupt(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'result.json');
  const args = [fileURLToPath(import.meta.url), '--child-result', file, '--runtime', runtime];
  if (options.mode === 'full') args.push('--full');
  for (const s of options.scenarios) args.push('--scenario', s);
  for (const t of options.transports) args.push('--transport', t);
  if (options.baseline !== undefined) args.push('--baseline', options.baseline);
  let died: ChildExit | undefined;
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(executable, args, { stdio: ['ignore', 'inherit', 'inherit'] });
      runningChild = child;
      child.once('error', reject);
      child.once('exit', (c, signal) => {
        // This child ends on its own (0, or 130 when interrupted): any other end is a death like a server's.
        if (c !== 0 && c !== 130) died = { role: 'benchmark run', runtime, pid: child.pid ?? 0, code: c, signal, when: 'unasked', stderrTail: [] };
        resolve(c);
      });
    });
    // An interrupted child (exit 130) has written what it measured so far.
    if (code !== 0 && !(code === 130 && existsSync(file))) throw new Error(`${runtime} run exited with ${died ? (died.signal ?? `code ${code}`) : `code ${code}`}`);
    return JSON.parse(readFileSync(file, 'utf8')) as RuntimeRun;
  } catch (error) {
    return { runtime, version: runtimeVersion(executable), scenarios: [], skipped: [`${runtime}: the whole run failed: ${(error as Error).message}`], ...(died ? { childExits: [died] } : {}) };
  } finally {
    runningChild = undefined;
    forget();
    rmSync(dir, { recursive: true, force: true });
  }
}

void SilentProgress;
main().then(
  (code) => process.exit(code),
  (error: Error) => {
    // An error the user can fix is one line; anything else is a bug, and its stack helps find it.
    if (error instanceof UsageError) {
      process.stderr.write(`mcp-msgpack-bench: ${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`mcp-msgpack-bench failed: ${error?.stack ?? error}\n`);
    process.exit(1);
  },
);
