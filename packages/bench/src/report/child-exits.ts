// What the reports say of a child process that died unasked (runner/child-watch.ts): one line naming where it
// served, its pid and how it ended, then the last lines of its stderr. The same words in the terminal, in
// --details, in the HTML report's headline; --json carries the records themselves.
import type { BenchResult, ChildExit } from '../results.js';

/** How a child ended, in words: "killed by SIGABRT" or "exited with code 3". */
export function howItEnded(exit: Pick<ChildExit, 'code' | 'signal'>): string {
  return exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

/** The report's line for an unexpected exit: where the child served, its pid, how and when it ended. */
export function childExitLine(exit: ChildExit): string {
  const where = [exit.scenario ?? 'outside any scenario', `[${exit.runtime}]`, exit.variant ? `variant ${exit.variant}` : ''].filter(Boolean).join(' ');
  const when = exit.when === 'unasked' ? 'before the benchmark asked it to stop' : 'while the benchmark stopped it (not by its SIGTERM/SIGKILL)';
  return `CHILD DIED: ${where}: ${exit.role} pid ${exit.pid} ${howItEnded(exit)} ${when}`;
}

/** The line and its stderr tail, indented, as the text report prints them. */
export function childExitText(exit: ChildExit): string {
  const tail = exit.stderrTail.length > 0 ? exit.stderrTail.map((line) => `\n    stderr: ${line}`).join('') : '\n    (no stderr kept)';
  return childExitLine(exit) + tail;
}

/** The report's section on dead children, first in the headline; undefined when none died. */
export function childExitSection(result: Pick<BenchResult, 'childExits'>): string | undefined {
  const exits = result.childExits ?? [];
  if (exits.length === 0) return undefined;
  const head = `CHILD PROCESSES THAT DIED (${exits.length}): the scenarios they served are not trustworthy, and the run exits non-zero`;
  return [head, ...exits.map(childExitText)].join('\n');
}
