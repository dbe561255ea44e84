// What `npm test` prints per runtime when the full log goes to a file: the counts, then each failure with its
// file, its test's name and the first lines of its assertion; the last line is `N passed, N failed, N skipped`
// alone, for CI to read. Shared by the Node reporter (node-summary-reporter.mjs) and the Bun JUnit reader.
import { relative, resolve } from 'node:path';

/** How many lines of one failure's message are shown; the rest is in the log. */
const MESSAGE_LINES = 12;
/** How many failures are shown in full; a run with more says how many more are in the log. */
const SHOWN_FAILURES = 15;

/**
 * @typedef {{ file: string, name: string, message: string, where?: string }} Failure
 * @typedef {{ kind: 'suite' | 'test', file: string, name: string, reason: string }} Skip
 * @typedef {{ passed: number, failed: number, skipped: number, failures: Failure[], skips?: Skip[], unexplainedSkips?: number, files: number, seconds: number, logFile: string, problem?: string }} RunSummary
 */

/** The summary's lines, failures first; `runtime` names the half ("node", "bun"). */
export function formatSummary(runtime, summary) {
  const { passed, failed, skipped, failures, skips = [], unexplainedSkips = 0, files, seconds, logFile, problem } = summary;
  const lines = skipLines(skips, unexplainedSkips);
  const shown = failures.slice(0, SHOWN_FAILURES);
  for (const [i, failure] of shown.entries()) {
    lines.push(`${i + 1}) ${failure.file}`, `   ${failure.name}`);
    lines.push(...messageLines(failure.message).map((line) => (line ? `     ${line}` : '')));
    if (failure.where) lines.push(`     (${failure.where})`);
    lines.push('');
  }
  if (failures.length > shown.length) lines.push(`... and ${failures.length - shown.length} more failures in the log`, '');
  if (problem) lines.push(problem, '');
  lines.push(`${runtime}: ${files} test files in ${seconds.toFixed(0)} s; full log: ${logFile}`);
  lines.push(`${passed} passed, ${failed} failed, ${skipped} skipped`);
  return lines.join('\n') + '\n';
}

/**
 * What was skipped and why, grouped by file and reason. Both runtimes count a skipped suite as one skip (its
 * tests never run, so they cannot be counted), which the runners' own tallies do not: Node's spec reporter
 * counts it under `suites`, Bun's output leaves it out.
 */
function skipLines(skips, unexplained) {
  if (skips.length === 0 && unexplained === 0) return [];
  const lines = [`skipped (${skips.length + unexplained}; a skipped suite counts as one, its tests do not run):`];
  const groups = new Map();
  for (const skip of skips) {
    const key = `${skip.file}\0${skip.reason}`;
    if (!groups.has(key)) groups.set(key, { file: skip.file, reason: skip.reason, entries: [] });
    groups.get(key).entries.push(skip);
  }
  for (const { file, reason, entries } of groups.values()) {
    lines.push(`  ${file}: ${reason}`);
    for (const { kind, name } of entries) lines.push(`    - ${kind} "${name}"`);
  }
  if (unexplained > 0) lines.push(`  ${unexplained} skipped test(s) whose reason the runner did not report (see the log)`);
  lines.push('');
  return lines;
}

/** The first stack frame outside node's internals and node_modules (where the assertion is), relative to root. */
export function ownFrame(stack, root) {
  for (const line of String(stack ?? '').split('\n')) {
    const match = /^\s+at (?:.*\()?(?:file:\/\/)?([^()\s]+:\d+:\d+)\)?$/.exec(line);
    if (match && !match[1].includes('node_modules') && !match[1].startsWith('node:')) return relative(root, resolve(root, match[1]));
  }
  return undefined;
}

/** The message without stack frames, cut to MESSAGE_LINES. */
function messageLines(message) {
  const lines = String(message)
    .split('\n')
    .filter((line) => !/^\s+at\s/.test(line))
    .map((line) => line.trimEnd());
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  if (lines.length <= MESSAGE_LINES) return lines;
  return [...lines.slice(0, MESSAGE_LINES), `(${lines.length - MESSAGE_LINES} more lines in the log)`];
}
