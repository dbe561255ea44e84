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
 * @typedef {{ passed: number, failed: number, skipped: number, failures: Failure[], files: number, seconds: number, logFile: string, problem?: string }} RunSummary
 */

/** The summary's lines, failures first; `runtime` names the half ("node", "bun"). */
export function formatSummary(runtime, summary) {
  const { passed, failed, skipped, failures, files, seconds, logFile, problem } = summary;
  const lines = [];
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
