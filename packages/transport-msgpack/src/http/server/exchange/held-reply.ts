import { DEFAULT_KEEP_ALIVE_MS } from './event-stream.js';

/** How a POST carrying one request is answered (SPEC.md 9.6.2): a stream only when its reply needs one, or always. */
export type ReplyStreams = 'when-needed' | 'always';

/** A held reply opens its stream after this long at most, whatever the keep-alive interval (SPEC.md 9.6.2 rule 5). */
const MAX_HOLD_MS = 30_000;

/**
 * How long a held reply waits for its first message before it opens its stream: the stream keep-alive
 * interval, so a client or proxy never waits longer for headers than it would have for a stream's first
 * keep-alive; 15 s when keep-alives are off, and never beyond 30 s.
 */
export function holdInterval(keepAliveMs: number): number {
  return Math.min(keepAliveMs >= 1 ? keepAliveMs : DEFAULT_KEEP_ALIVE_MS, MAX_HOLD_MS);
}

/** Calls `gone` once if the client goes away; returns what stops the watch. */
export type GoneWatch = (gone: () => void) => () => void;

/**
 * How a held reply learns that its client left: the request's own watch where the adapter has one (node:http,
 * no AbortController), else its abort signal (a web Request's), else nothing.
 */
export function clientGoneWatch(req: { readonly signal?: AbortSignal; whenGone?: GoneWatch }): GoneWatch | undefined {
  if (req.whenGone) return req.whenGone;
  const { signal } = req;
  if (!signal) return undefined;
  return (gone) => {
    if (signal.aborted) {
      queueMicrotask(gone);
      return () => {};
    }
    signal.addEventListener('abort', gone, { once: true });
    return () => signal.removeEventListener('abort', gone);
  };
}

/**
 * The reply to a POST of one request while nothing of it has been sent (SPEC.md 9.6.2): the stream table
 * answers it as one body if the request's final response comes first, else asks it to open its stream (any
 * other message first, the hold interval passed, the server ending it). It ends the hold itself when the
 * client goes away, with nothing written.
 */
export class HeldReply {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private opening: Promise<void> | undefined;
  private unwatch: (() => void) | undefined;

  /**
   * `openStream`: makes and primes the stream and answers the POST with it (the transport's part);
   * `watchGone`: watches for the client leaving (clientGoneWatch); `gone`: the client left while held.
   */
  constructor(
    private readonly openStream: () => Promise<void>,
    holdMs: number,
    watchGone: GoneWatch | undefined,
    gone: () => void,
  ) {
    this.timer = setTimeout(() => void this.open(), holdMs);
    this.timer.unref?.();
    this.unwatch = watchGone?.(() => {
      this.dispose();
      gone();
    });
  }

  /** Whether the stream was asked for: from then on every message waits for it, the final response included. */
  get opened(): boolean {
    return this.opening !== undefined;
  }

  /** Opens the stream once; every caller waits for the same opening, so messages keep their order. */
  open(): Promise<void> {
    this.stopTimer();
    this.opening ??= this.openStream();
    return this.opening;
  }

  /** No timer, no abort watch: the reply went as one body, or its stream took over, or it was dropped. */
  dispose(): void {
    this.stopTimer();
    this.unwatch?.();
    this.unwatch = undefined;
  }

  private stopTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
