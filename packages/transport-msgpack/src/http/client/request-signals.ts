/** One request's abort signal, and the call that lets it go once the request (or its reply stream) is over. */
export interface RequestSignal {
  signal: AbortSignal;
  done(): void;
}

/**
 * The transport's own abort (start() to close()) and one signal per request in flight, each aborted by
 * close() and by the caller's `requestSignal` (SDK v2), if any. A request's signal is its own, not a
 * listener on the transport's long-lived signal: fetch keeps a listener on the signal it is given until the
 * request is collected, and one listener per call in flight on a shared signal piles up
 * (MaxListenersExceededWarning past 10 concurrent calls).
 */
export class RequestSignals {
  private transport: AbortController | undefined;
  private readonly inFlight = new Set<AbortController>();

  get started(): boolean {
    return this.transport !== undefined;
  }

  /** Started and not closed. */
  get open(): boolean {
    return this.transport !== undefined && !this.transport.signal.aborted;
  }

  /** The transport's signal, aborted by close(): what it ends, it ends on purpose. */
  get closing(): AbortSignal | undefined {
    return this.transport?.signal;
  }

  start(): void {
    this.transport = new AbortController();
  }

  forRequest(callerSignal?: AbortSignal): RequestSignal {
    const controller = new AbortController();
    if (this.transport?.signal.aborted) controller.abort(this.transport.signal.reason);
    this.inFlight.add(controller);
    let unfollow = (): void => {};
    if (callerSignal) {
      if (callerSignal.aborted) controller.abort(callerSignal.reason);
      const follow = () => controller.abort(callerSignal.reason);
      callerSignal.addEventListener('abort', follow, { once: true });
      unfollow = () => callerSignal.removeEventListener('abort', follow);
    }
    return {
      signal: controller.signal,
      done: () => {
        this.inFlight.delete(controller);
        unfollow();
      },
    };
  }

  /** close(): aborts the transport and every request still in flight. */
  abortAll(): void {
    this.transport?.abort();
    for (const request of this.inFlight) request.abort(this.transport?.signal.reason);
    this.inFlight.clear();
  }
}
