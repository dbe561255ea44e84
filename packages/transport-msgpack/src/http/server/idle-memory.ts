import { IdleRelease } from '../../buffers/idle-release.js';
import { runtime } from '../../runtime/current.js';

/** How long a handler waits, with nothing in flight, before it lets go of what it keeps (idleRelease). */
export const DEFAULT_IDLE_RELEASE_AFTER_MS = 15_000;

/** McpHttpHandler's `idleRelease` option. */
export interface IdleReleaseOptions {
  /**
   * With no request in flight and no stream open for this long, the handler lets go of what it keeps for
   * reuse. Default 15 s: past the 10 s after which pools and encoders drop their own spare buffers, so
   * what they held is garbage by then.
   */
  afterMs?: number;
  /**
   * Then asks the engine for a full garbage collection: Bun.gc(true) and Bun.shrink() on Bun (which also
   * drops compiled code, compiled again on next use); on Node the `gc` global,
   * which exists only if the process was started with --expose-gc (the handler throws at construction
   * otherwise). Process-wide, so off by default: an engine left alone collects when it allocates, and a
   * server idle after a burst may keep for minutes the garbage of that burst, with the native memory its
   * dead Buffers hold. The media server's CLI turns it on for its own process. A function is called
   * instead of the engine's (a `gc` obtained some other way, a collection plus something of the host's).
   */
  collectGarbage?: boolean | (() => void);
}

/**
 * Counts a handler's work (requests being handled, reply streams being read) and, once there has been none
 * (nor a session ended) for `afterMs`, calls `release` once, then the engine's collection if asked; the next period of idleness
 * after more work releases again. A look that finds work re-arms for another period. One unref'd timer
 * while armed, nothing per request but a counter and a timestamp.
 */
export class IdleMemoryRelease {
  private busy = 0;
  private readonly idle: IdleRelease;
  private readonly collect: (() => void) | undefined;
  /** Releases done so far (for tests and diagnostics). */
  releases = 0;

  constructor(
    options: IdleReleaseOptions,
    private readonly stillWorking: () => boolean,
    private readonly release: () => void,
  ) {
    const afterMs = options.afterMs ?? DEFAULT_IDLE_RELEASE_AFTER_MS;
    if (Number.isNaN(afterMs) || afterMs <= 0) throw new RangeError(`idleRelease.afterMs must be > 0 (idleRelease: false turns it off), got ${afterMs}`);
    if (typeof options.collectGarbage === 'function') this.collect = options.collectGarbage;
    else if (options.collectGarbage) {
      this.collect = runtime.fullGarbageCollection();
      if (!this.collect) throw new Error('idleRelease.collectGarbage needs a garbage collection the engine offers: on Node, start it with --expose-gc');
    }
    this.idle = new IdleRelease(afterMs, () => this.fire());
  }

  begin(): void {
    this.busy++;
    this.idle.use();
  }

  end(): void {
    this.busy--;
    this.idle.use();
  }

  /**
   * Something was let go without a request (a session expired or its initialization deadline passed): the
   * idle period starts again, so the collection comes after it and finds what it left as garbage.
   */
  touch(): void {
    this.idle.use();
  }

  private fire(): void {
    // Still working (a long request, an open stream): look again one period later.
    if (this.busy > 0 || this.stillWorking()) return this.idle.use();
    this.releases++;
    this.release();
    this.collect?.();
  }
}
