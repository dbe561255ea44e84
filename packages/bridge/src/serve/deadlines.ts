/** One timer per key (a request id): the deadline of each call the child has not answered yet. */
export class Deadlines<K> {
  private readonly timers = new Map<K, ReturnType<typeof setTimeout>>();

  set(key: K, ms: number, expire: () => void): void {
    this.clear(key);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      expire();
    }, ms);
    // A call waiting for its deadline must not keep the bridge alive on its own.
    timer.unref?.();
    this.timers.set(key, timer);
  }

  clear(key: K): void {
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
  }

  clearAll(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

/** What a client gets for a call its deadline ended: the initialize deadline ends the child too. */
export function deadlineMessage(command: string, ms: number, initialize: boolean): string {
  return initialize
    ? `mcp-msgpack-bridge: the stdio server (${command}) did not answer initialize within ${ms} ms (--init-timeout); it was ended`
    : `mcp-msgpack-bridge: the stdio server (${command}) did not answer within ${ms} ms (--request-timeout); the call was cancelled`;
}
