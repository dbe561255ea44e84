// A process's CPU time by thread, from Linux /proc: what JavaScriptCore's compiler and heap threads take
// apart from the thread that runs JavaScript.
import { readdirSync, readFileSync } from 'node:fs';

/** A process's threads' run time so far (ns) by thread id, each with its name: 'main' for its first thread, else its comm without trailing digits. */
export function threadTimes(pid) {
  const times = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name =
        tid === String(pid)
          ? 'main'
          : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8')
              .trim()
              .replace(/[\s\d]+$/, '');
      times.set(tid, { name, ns: Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return times;
}

/** Run time (ns) by thread name between two threadTimes of one process; a thread that ended meanwhile is left out. */
export function threadDelta(before, after) {
  const byName = new Map();
  for (const [tid, { name, ns }] of after) byName.set(name, (byName.get(name) ?? 0) + ns - (before.get(tid)?.ns ?? 0));
  return byName;
}

/** JavaScriptCore's JIT compiler threads (`JITWorker`); on Node V8's background threads are all named `node`. */
export const isJitThread = (name) => /JIT/i.test(name);
