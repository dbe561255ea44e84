// Every child process the benchmark starts (server children, the byte-counting relay, the opt-in scenarios'
// servers) is watched here, so that one which dies is never swallowed: until this module, a server that
// aborted at teardown (a native assertion in node:zlib) printed its stack trace and the run still reported
// its figures and exited 0. A watched child that ends with a non-zero status, or on a signal the benchmark
// did not send to stop it (SIGABRT, SIGSEGV, the kernel's SIGKILL when out of memory),
// is recorded with the last lines of its stderr; the run reports it, distrusts its scenario and exits non-zero.
// Cheap: one 'exit' listener and a bounded stderr tail per child; no polling.
import type { ChildProcess } from 'node:child_process';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { onInterrupt } from '../interrupt.js';
import type { ChildExit } from '../results.js';

/** The stderr kept per child (the end of a native stack trace fits), and the lines of it a report shows. */
const TAIL_CHARS = 4096;
const TAIL_LINES = 16;
/** How long a child asked to stop with SIGTERM has before it gets SIGKILL. */
const STOP_GRACE_MS = 5_000;
/** The signals a stop sends (the benchmark's own, a stdio transport's close(), an interrupt): an expected end. */
const STOP_SIGNALS: ReadonlySet<string> = new Set(['SIGTERM', 'SIGKILL', 'SIGINT']);

/** Who a child is, for the report: its role (e.g. "server"), its runtime, and where it served. */
export interface ChildIdentity {
  role: string;
  /** The runtime's name (node, bun) or its executable, whose base name is kept. */
  runtime: string;
  scenario?: string;
  variant?: string;
}

export interface WatchOptions {
  /** The child's stderr when it is a pipe (the child's own, or a transport's copy of it): its tail is kept. */
  stderr?: Readable | null;
  /** Copy that stderr to this process's, as an inherited stderr would show it (default true). */
  echo?: boolean;
}

const unexpected: ChildExit[] = [];

/** The unexpected exits recorded since the last call, oldest first (each is returned once). */
export function takeChildExits(): ChildExit[] {
  return unexpected.splice(0);
}

/** A watched child: how the benchmark stops it, and where the report should say it served. */
export class WatchedChild {
  /** The scenario and variant using the child now (a pooled server serves one scenario after another). */
  scenario: string | undefined;
  variant: string | undefined;
  /** Settles once the child has exited. */
  readonly exited: Promise<void>;
  private asked = false;
  private tail = '';
  private record: ChildExit | undefined;

  constructor(
    readonly child: ChildProcess,
    private readonly identity: ChildIdentity,
    options: WatchOptions = {},
  ) {
    this.scenario = identity.scenario;
    this.variant = identity.variant;
    const stderr = options.stderr;
    if (stderr) {
      const echo = options.echo ?? true;
      stderr.on('data', (chunk: Buffer | string) => {
        if (echo) process.stderr.write(chunk);
        this.tail = (this.tail + chunk.toString()).slice(-TAIL_CHARS);
        // Lines written after the exit was seen (the pipe drains after 'exit') still belong to its record.
        if (this.record) this.record.stderrTail = lastLines(this.tail);
      });
    }
    // An interrupted run kills its children itself: that is asked for, not a crash.
    const forget = onInterrupt(() => this.kill('SIGKILL'));
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        forget();
        this.onExit(child.exitCode, child.signalCode);
        resolve();
        return;
      }
      child.once('exit', (code, signal) => {
        forget();
        this.onExit(code, signal);
        resolve();
      });
      // A child that never started has no exit to wait for; its caller reports the spawn error.
      child.once('error', () => {
        if (child.pid === undefined) {
          forget();
          resolve();
        }
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Says the benchmark is ending the child by other means than a signal (closing its stdin, a transport's close()). */
  expectExit(): void {
    this.asked = true;
  }

  /** Sends `signal`, as a stop the benchmark asked for. */
  kill(signal: NodeJS.Signals): void {
    this.asked = true;
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }

  /** Asks the child to stop (SIGTERM, then SIGKILL after a grace period) and waits for its exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = STOP_GRACE_MS): Promise<void> {
    this.kill(signal);
    const timer = setTimeout(() => this.kill('SIGKILL'), graceMs);
    try {
      await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    // Status 0 is a clean end, asked or not: a stdio server exits so when its client drops the pipe, as the SDK's
    // client does on a line over its limit (media-5MiB/stdio's official server, an expected failure there).
    // A server gone that way mid-scenario fails its calls, which the run reports already. Asked to stop, a
    // child may also end on the signal it was sent.
    if (code === 0 || (this.asked && signal !== null && STOP_SIGNALS.has(signal))) return;
    this.record = {
      role: this.identity.role,
      runtime: basename(this.identity.runtime).replace(/\.exe$/, ''),
      ...(this.scenario !== undefined ? { scenario: this.scenario } : {}),
      ...(this.variant !== undefined ? { variant: this.variant } : {}),
      pid: this.child.pid ?? 0,
      code,
      signal,
      when: this.asked ? 'while being stopped' : 'unasked',
      stderrTail: lastLines(this.tail),
    };
    unexpected.push(this.record);
  }
}

/** Watches `child` from now on; call right after spawn (before its first event can be missed). */
export function watchChild(child: ChildProcess, identity: ChildIdentity, options?: WatchOptions): WatchedChild {
  return new WatchedChild(child, identity, options);
}

function lastLines(text: string): string[] {
  const lines = text.split('\n');
  // The first line may be cut by the tail's bound; the last is empty after a final newline.
  if (text.length >= TAIL_CHARS) lines.shift();
  return lines
    .map((line) => line.trimEnd())
    .filter((line) => line.length > 0)
    .slice(-TAIL_LINES);
}
