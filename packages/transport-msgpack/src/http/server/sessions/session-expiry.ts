/** A stateful session with nothing in flight for this long is closed (clients get 404 and re-initialize). */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 30 * 60_000;

/** The sweeper never waits longer than this between looks, so a long timeout is still kept to within a minute. */
const MAX_SWEEP_INTERVAL_MS = 60_000;

/** What the sweeper needs to know about one session. */
export interface ExpirableSession {
  /** performance.now() of the last time the session was seen in use. */
  lastActive: number;
  /** Requests being handled right now (their Response not yet returned). */
  inFlight: number;
  /** Reply streams and the GET stream open right now. */
  readonly openStreams: number;
}

/** The option as a timeout in ms, or undefined when expiry is off (0 or Infinity). */
export function resolveIdleTimeout(option: number | undefined): number | undefined {
  const ms = option ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS;
  if (Number.isNaN(ms) || ms < 0) throw new RangeError(`sessionIdleTimeoutMs must be >= 0 (0 or Infinity turns expiry off), got ${ms}`);
  return ms === 0 || ms === Infinity ? undefined : ms;
}

/**
 * Finds sessions idle for longer than the timeout with one unref'd interval, so the request path only
 * stores a timestamp and a counter. A session seen busy (a request in flight, a stream open) counts as
 * active at that look, so idleness is measured from the last look that found it busy: a session may live
 * up to one interval longer than the timeout, never shorter.
 */
export class IdleSessionSweeper<S extends ExpirableSession> {
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly intervalMs: number;

  constructor(
    private readonly timeoutMs: number,
    private readonly sessions: { values(): Iterable<S>; readonly size: number },
    private readonly expire: (session: S) => void,
  ) {
    this.intervalMs = Math.max(1, Math.min(Math.ceil(timeoutMs / 4), MAX_SWEEP_INTERVAL_MS));
  }

  /** @internal Whether the interval is set (for tests). */
  get running(): boolean {
    return this.timer !== undefined;
  }

  /** Starts the interval if it is not running; called when a session is added. */
  ensureRunning(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.sweep(), this.intervalMs);
    // Sessions alone must never keep the process alive.
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private sweep(): void {
    const now = performance.now();
    const idle: S[] = [];
    for (const session of this.sessions.values()) {
      if (session.inFlight > 0 || session.openStreams > 0) session.lastActive = now;
      else if (now - session.lastActive >= this.timeoutMs) idle.push(session);
    }
    for (const session of idle) this.expire(session);
    // Nothing left to watch: the next new session starts the interval again.
    if (this.sessions.size === 0) this.stop();
  }
}
