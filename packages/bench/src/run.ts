import type { BenchOptions } from './options.js';
import { buildPlan, type PlanTuning } from './plan.js';
import type { Progress } from './report/progress.js';
import type { ChildExit, ScenarioResult } from './results.js';
import { SessionPool } from './runner/pool.js';
import { TimeBudget } from './runner/decider.js';
import { runCallScenario } from './runner/rounds.js';
import { runCodecPayload } from './scenarios/codec.js';
import { createMediaDir } from './scenarios/media.js';
import { currentRuntime } from './environment.js';
import { takeChildExits } from './runner/child-watch.js';
import { childExitLine, howItEnded } from './report/child-exits.js';

export interface RuntimeRun {
  runtime: string;
  version: string;
  scenarios: ScenarioResult[];
  skipped: string[];
  /** Child processes that died unasked (runner/child-watch.ts); their scenarios are marked untrusted. */
  childExits?: ChildExit[];
}

/**
 * Runs the plan in this process's runtime: the codec venue in-process, every other venue through server
 * children started with this same executable. A scenario that fails is reported as skipped (with its
 * error) and the run goes on.
 */
export async function runInThisRuntime(options: BenchOptions, progress: Progress, tuning: PlanTuning = {}, sofar?: RuntimeRun): Promise<RuntimeRun> {
  const runtime = currentRuntime();
  const media = tuning.mediaDir ? undefined : createMediaDir();
  try {
    return await runPlan(options, progress, { ...tuning, mediaDir: tuning.mediaDir ?? media?.dir }, runtime, sofar);
  } finally {
    media?.remove();
  }
}

/** `sofar`, when given, is filled as the run goes: what an interrupted run can still report. */
async function runPlan(options: BenchOptions, progress: Progress, tuning: PlanTuning, runtime: { name: string; version: string }, sofar?: RuntimeRun): Promise<RuntimeRun> {
  const plan = await buildPlan(options, tuning);
  progress.begin(plan.steps);
  const run: RuntimeRun = Object.assign(sofar ?? { runtime: '', version: '', scenarios: [], skipped: [] }, { runtime: runtime.name, version: runtime.version });
  const scenarios: ScenarioResult[] = run.scenarios;
  const skipped = run.skipped;
  skipped.push(...plan.skipped.map((s) => `${runtime.name}: ${s}`));
  for (const line of skipped) progress.note(`skipped: ${line}`);
  const count = plan.codec.payloads.length + plan.calls.length;
  let index = 0;
  for (const payload of plan.codec.payloads) {
    progress.scenario(`codec/${payload.name} (${runtime.name})`, ++index, count);
    try {
      scenarios.push(await runCodecPayload(payload, plan.codec, runtime.name, progress));
    } catch (error) {
      const line = `${runtime.name}: codec/${payload.name} failed: ${(error as Error).message}`;
      skipped.push(line);
      progress.note(line);
    }
  }
  const pool = new SessionPool(process.execPath, tuning.mediaDir);
  const decider = plan.decider && { ...plan.decider, budget: new TimeBudget(plan.decider.budgetMs) };
  try {
    for (const scenario of plan.calls) {
      progress.scenario(`${scenario.name} (${runtime.name})`, ++index, count);
      await pool.keepOnly(scenario.variants);
      try {
        scenarios.push(await runCallScenario(scenario, runtime.name, pool, progress, decider));
      } catch (error) {
        const line = `${runtime.name}: ${scenario.name} failed: ${(error as Error).message}`;
        skipped.push(line);
        progress.note(line);
      }
      recordChildExits(run, progress);
    }
  } finally {
    // Servers kept for the next scenario are stopped here: a death at their teardown counts as any other.
    await pool.closeAll();
    recordChildExits(run, progress);
  }
  progress.end();
  return run;
}

/**
 * Moves the child exits recorded so far into the run, each scenario it names marked untrusted (a pooled
 * server names the last scenario it served, so a death at its teardown marks that one).
 */
export function recordChildExits(run: RuntimeRun, progress?: Progress, exits = takeChildExits()): void {
  for (const exit of exits) {
    // The record itself, not a copy: stderr the pipe still delivers after the exit is added to its tail.
    (run.childExits ??= []).push(exit);
    progress?.note(childExitLine(exit));
    const scenario = [...run.scenarios].reverse().find((s) => s.name === exit.scenario);
    if (!scenario) continue;
    const why = `a ${exit.role} child (pid ${exit.pid}${exit.variant ? `, ${exit.variant}` : ''}) ${howItEnded(exit)} ${exit.when === 'unasked' ? 'unasked' : 'while being stopped'}`;
    scenario.untrusted = scenario.untrusted ? `${scenario.untrusted}; ${why}` : why;
    scenario.notes.push(`NOT TRUSTWORTHY: ${why}; its figures and verdicts are not to be relied on`);
  }
}
