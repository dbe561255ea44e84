import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import type { Log } from '../log.js';

/** How long a process group gets after SIGTERM before SIGKILL. */
const GROUP_GRACE_MS = 2000;

/**
 * Every child the bridge starts. Each is the leader of a process group of its own (`detached`), so that
 * ending it ends what it started too: a grandchild holding the child's stdout would otherwise keep the
 * session open after the child died, and outlive the bridge. A child counts against the cap from its spawn
 * until its exit (not until close() is asked for), so the cap holds while sessions churn.
 */
export class ChildProcesses {
  private readonly live = new Set<ChildProcess>();
  /** Children whose group may still hold processes: until their pipes close, or the group was killed. */
  private readonly groups = new Set<ChildProcess>();

  constructor(
    readonly max: number,
    private readonly log: Log,
  ) {}

  get count(): number {
    return this.live.size;
  }

  get hasRoom(): boolean {
    return this.live.size < this.max;
  }

  /**
   * The stdio transport's `spawn`: refuses past the cap (checked and counted in the same turn, so two
   * sessions starting together cannot both take the last place), puts the child in its own group, and
   * when the child exits ends the rest of its group and lets go of its pipes.
   */
  spawn(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
    if (!this.hasRoom) throw new Error(`the bridge runs its maximum of ${this.max} stdio servers (--max-sessions); try again later`);
    const child = spawn(command, args, { ...options, detached: true });
    this.live.add(child);
    this.groups.add(child);
    child.once('close', () => this.groups.delete(child));
    let gone = false;
    const exited = () => {
      if (gone) return;
      gone = true;
      this.live.delete(child);
      this.endGroupAfterLeader(child);
    };
    child.once('exit', exited);
    child.once('error', exited);
    return child;
  }

  /** Ends every child's group: SIGTERM, then SIGKILL for what is left after the grace period. */
  async endAll(): Promise<void> {
    if (this.groups.size === 0) return;
    for (const child of this.groups) signalGroup(child, 'SIGTERM');
    const deadline = Date.now() + GROUP_GRACE_MS;
    while (Date.now() < deadline && this.groups.size > 0) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    this.killAllNow();
  }

  /** SIGKILL to every group, at once (the bridge's last act when it exits). */
  killAllNow(): void {
    for (const child of this.groups) signalGroup(child, 'SIGKILL');
  }

  /**
   * The leader is gone: what it started goes too (SIGTERM, then SIGKILL), and if something outside the
   * group still holds its stdout, the bridge stops reading it, so the session sees the exit.
   */
  private endGroupAfterLeader(child: ChildProcess): void {
    if (!signalGroup(child, 'SIGTERM')) return;
    const timer = setTimeout(() => {
      signalGroup(child, 'SIGKILL');
      this.groups.delete(child);
      if (!child.stdout?.destroyed) {
        this.log(`the stdio server (pid ${child.pid}) exited but something still held its output; no longer read`);
        child.stdout?.destroy();
        child.stdin?.destroy();
      }
    }, GROUP_GRACE_MS);
    timer.unref();
    child.once('close', () => clearTimeout(timer));
  }
}

/** Signals a child's whole process group; false when there is no group left. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, signal);
    return true;
  } catch {
    return false;
  }
}
