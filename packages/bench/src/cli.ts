#!/usr/bin/env node
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchVersion, currentRuntime, describeEnvironment } from './environment.js';
import { HELP, parseOptions, unknownScenarioFilters, VENUES, type BenchOptions } from './options.js';
import { availableScenarios } from './plan.js';
import { wrapWords } from './report/format.js';
import { renderHtml } from './report/html.js';
import { StreamProgress, SilentProgress } from './report/progress.js';
import { SUMMARY_WIDTH } from './report/summary.js';
import { renderText } from './report/table.js';
import { renderScale, runScaleScenario } from './scenarios/scale.js';
import { SCHEMA, type BenchResult } from './results.js';
import { runInThisRuntime, type RuntimeRun } from './run.js';
import { runtimeExecutable, runtimeVersion } from './runtimes.js';
import { NOISE_BAND } from './stats.js';
import { evaluateTargets } from './targets.js';

async function main(): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${HELP}`);
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
  // Opt-in, on its own: it needs redis-server, nginx and a checkout of the repository.
  if (options.scenarios.includes('scale')) return runScale(options);
  const unknownScenarios = await unknownFilterMessage(options);
  if (unknownScenarios) {
    process.stderr.write(unknownScenarios);
    return 2;
  }
  // Read by the benchmark's server children (servers/sdk-leak.ts), which inherit the environment.
  if (options.sdkAsPublished) process.env.MCP_MSGPACK_BENCH_SDK_AS_PUBLISHED = '1';
  if (options.childResultFile) {
    // A child run for one runtime: progress on stderr, results to the file.
    const run = await runInThisRuntime(options, new StreamProgress(process.stderr));
    writeFileSync(options.childResultFile, JSON.stringify(run));
    return 0;
  }

  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const runs: RuntimeRun[] = [];
  const here = currentRuntime();
  for (const runtime of options.runtimes) {
    if (runtime === here.name) runs.push(await runInThisRuntime(options, new StreamProgress(process.stderr)));
    else runs.push(await runInChild(runtime, options));
  }
  const scenarios = runs.flatMap((r) => r.scenarios);
  const partial = {
    schema: SCHEMA,
    mode: options.mode,
    command: commandLine(),
    startedAt,
    durationMs: Date.now() - started,
    environment: describeEnvironment(Object.fromEntries(runs.map((r) => [r.runtime, r.version]))),
    noiseBand: NOISE_BAND,
    scenarios,
    skipped: runs.flatMap((r) => r.skipped),
  } satisfies Omit<BenchResult, 'targets'>;
  const result: BenchResult = { ...partial, targets: evaluateTargets(partial) };
  process.stdout.write('\n' + renderText(result, { details: options.details }));
  if (options.jsonFile) {
    writeFileSync(options.jsonFile, JSON.stringify(result, null, 2) + '\n');
    process.stdout.write(`results written to ${options.jsonFile}\n`);
  }
  if (options.reportFile) {
    writeFileSync(options.reportFile, renderHtml(result));
    process.stdout.write(`report written to ${options.reportFile}\n`);
  }
  return 0;
}

/** Says which --scenario filters match nothing and lists the valid names; undefined when all match. */
async function unknownFilterMessage(options: BenchOptions): Promise<string | undefined> {
  const available = await availableScenarios(options);
  const unknown = unknownScenarioFilters(options.scenarios, available);
  if (unknown.length === 0) return undefined;
  const names = [...new Set(available.map((s) => s.name))];
  return [
    `mcp-msgpack-bench: no scenario matches --scenario ${unknown.map((f) => JSON.stringify(f)).join(', ')} (${options.mode} mode, ${options.transports.join(' and ')}).`,
    `Give a venue (${VENUES.join(', ')}) or the start of one of these names:`,
    wrapWords(names.join(', '), SUMMARY_WIDTH, '  '),
    '',
  ].join('\n');
}

async function runScale(options: BenchOptions): Promise<number> {
  const full = options.mode === 'full';
  const rounds = full ? 4 : 2;
  const rows = await runScaleScenario({ rounds, smallCalls: full ? 1_500 : 300, mediaCalls: full ? 60 : 12, log: (line) => process.stderr.write(`${line}\n`) });
  if (rows) process.stdout.write('\n' + renderScale(rows, rounds));
  return 0;
}

function commandLine(): string {
  return ['mcp-msgpack-bench', ...process.argv.slice(2)].join(' ');
}

/** Re-runs this CLI under another runtime for the measurement part and reads back its results. */
async function runInChild(runtime: 'node' | 'bun', options: BenchOptions): Promise<RuntimeRun> {
  const executable = runtimeExecutable(runtime);
  const dir = mkdtempSync(join(tmpdir(), 'mcp-msgpack-bench-'));
  const file = join(dir, 'result.json');
  const args = [fileURLToPath(import.meta.url), '--child-result', file, '--runtime', runtime];
  if (options.mode === 'full') args.push('--full');
  for (const s of options.scenarios) args.push('--scenario', s);
  for (const t of options.transports) args.push('--transport', t);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(executable, args, { stdio: ['ignore', 'inherit', 'inherit'] });
      child.once('error', reject);
      child.once('exit', (c) => resolve(c));
    });
    if (code !== 0) throw new Error(`${runtime} run exited with code ${code}`);
    return JSON.parse(readFileSync(file, 'utf8')) as RuntimeRun;
  } catch (error) {
    return { runtime, version: runtimeVersion(executable), scenarios: [], skipped: [`${runtime}: the whole run failed: ${(error as Error).message}`] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void SilentProgress;
main().then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`mcp-msgpack-bench failed: ${error?.stack ?? error}\n`);
    process.exit(1);
  },
);
