import { readFileSync, writeFileSync } from 'node:fs';

export interface RssReading {
  /** Resident set size now, bytes. */
  rss: number;
  /** Peak resident set size since the process started or since the last resetPeakRss, bytes. */
  peak: number;
}

/** Reads VmRSS and VmHWM of a process from /proc/PID/status; undefined where /proc is missing. */
export function readRss(pid: number): RssReading | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return undefined;
  }
  const rss = kilobytes(status, 'VmRSS');
  const peak = kilobytes(status, 'VmHWM');
  if (rss === undefined || peak === undefined) return undefined;
  return { rss, peak };
}

/**
 * Resets the peak (VmHWM) to the current RSS, so the next reading's peak belongs to what ran in between
 * (Linux >= 4.0: writing 5 to /proc/PID/clear_refs). Returns false when that is not possible; the caller
 * then falls back to sampling.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * Samples a process's RSS every `intervalMs` (for platforms where the peak cannot be reset) and keeps the
 * highest value seen.
 */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined;
  private highest = 0;

  constructor(
    private readonly pid: number,
    private readonly intervalMs = 10,
  ) {}

  start(): void {
    this.highest = readRss(this.pid)?.rss ?? 0;
    this.timer = setInterval(() => {
      const reading = readRss(this.pid);
      if (reading && reading.rss > this.highest) this.highest = reading.rss;
    }, this.intervalMs);
    this.timer.unref();
  }

  stop(): number {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const last = readRss(this.pid)?.rss ?? 0;
    return Math.max(this.highest, last);
  }
}

function kilobytes(status: string, field: string): number | undefined {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : undefined;
}
