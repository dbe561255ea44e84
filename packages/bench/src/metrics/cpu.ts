import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time of another process (user + system, every thread), read from Linux /proc so that no server,
 * not even the official one, has to cooperate. Each thread's /proc/PID/task/TID/schedstat holds its
 * on-CPU time in nanoseconds; /proc/PID/stat's utime + stime is the fallback (10 ms ticks).
 * Returns undefined where /proc is missing (macOS, Windows): the CPU metric is then not reported.
 */
export function readProcessCpuNs(pid: number): number | undefined {
  const fromSchedstat = readSchedstatNs(pid);
  if (fromSchedstat !== undefined) return fromSchedstat;
  return readStatNs(pid);
}

function readSchedstatNs(pid: number): number | undefined {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let total = 0;
  let seen = 0;
  for (const tid of tids) {
    try {
      const first = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'latin1').split(' ')[0];
      const ns = Number(first);
      if (Number.isFinite(ns)) {
        total += ns;
        seen++;
      }
    } catch {
      // The thread ended between the listing and the read: its time is lost either way.
    }
  }
  return seen > 0 ? total : undefined;
}

const TICKS_PER_SECOND = 100;

function readStatNs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15 (1-based).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1e9) / TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}
