/** How long buffers kept for reuse stay once nothing uses them: long next to a busy peer's gaps, short next to idle time. */
export const DEFAULT_IDLE_RELEASE_MS = 10_000;

/**
 * Calls `release` once `use()` has not been called for `ms`, so that buffers kept for the next large
 * message (a pool's, an encoder's) do not stay in memory for good after a burst. One unref'd timer while
 * armed, re-armed lazily from the last use: nothing per use but a timestamp.
 */
export class IdleRelease {
  private readonly ms: number | undefined;
  private lastUse = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** `ms` 0 or Infinity: never releases. */
  constructor(
    ms: number,
    private readonly release: () => void,
  ) {
    this.ms = ms > 0 && ms !== Infinity ? ms : undefined;
  }

  /** Marks a use now; the release comes `ms` after the last one. */
  use(): void {
    if (this.ms === undefined) return;
    this.lastUse = performance.now();
    if (this.timer === undefined) this.arm(this.ms);
  }

  private arm(delay: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const idleFor = performance.now() - this.lastUse;
      if (idleFor < this.ms!) return this.arm(this.ms! - idleFor);
      this.release();
    }, delay);
    // Kept buffers must never keep a process alive.
    (this.timer as { unref?: () => void }).unref?.();
  }
}
