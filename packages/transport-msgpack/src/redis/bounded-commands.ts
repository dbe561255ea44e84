import { EventStoreUnavailableError } from '../http/server/exchange/shared-event-store.js';
import type { RedisArgument, RedisCommands } from './client.js';

/** How often a stalled Redis is asked for a PING until it answers. */
const PROBE_INTERVAL_MS = 200;

/**
 * The store's commands, each bounded in time, so no call of the server waits on Redis longer than
 * `timeoutMs`: a command fails at once while the client is reconnecting (it would only wait in the client's
 * offline queue), and after `timeoutMs` when Redis does not answer (stopped, stalled). After a timeout Redis
 * counts as stalled: every command fails at once (nothing piles up in the client's queue, a 5 MiB event
 * least of all) until a PING, sent every 200 ms, is answered again.
 */
export class BoundedCommands {
  private stalled = false;
  private probe: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly inner: RedisCommands,
    private readonly timeoutMs: number,
  ) {}

  /** Whether a command may be sent now (connected, and not stalled). */
  get available(): boolean {
    return this.inner.connected && !this.stalled;
  }

  send(key: string | undefined, args: readonly RedisArgument[]): Promise<unknown> {
    return this.run(() => this.inner.send(key, args));
  }

  pipeline(key: string, commands: readonly (readonly RedisArgument[])[]): Promise<unknown[]> {
    return this.run(() => this.inner.pipeline(key, commands));
  }

  /** Whether Redis answers a PING within `timeoutMs` (never waits longer, never throws). */
  async ping(timeoutMs = this.timeoutMs): Promise<boolean> {
    if (!this.inner.connected) return false;
    try {
      await bounded(this.inner.send(undefined, ['PING']), timeoutMs);
      this.recovered();
      return true;
    } catch {
      return false;
    }
  }

  stop(): void {
    if (this.probe !== undefined) clearInterval(this.probe);
    this.probe = undefined;
  }

  private async run<T>(command: () => Promise<T>): Promise<T> {
    if (!this.inner.connected) throw new EventStoreUnavailableError('Redis is not connected (the client is reconnecting)');
    if (this.stalled) throw new EventStoreUnavailableError(`Redis did not answer within ${this.timeoutMs} ms and has not answered a PING since`);
    try {
      return await bounded(command(), this.timeoutMs);
    } catch (error) {
      if (error instanceof TimedOut) {
        this.stall();
        throw new EventStoreUnavailableError(`Redis did not answer within ${this.timeoutMs} ms`);
      }
      throw new EventStoreUnavailableError(`Redis command failed: ${(error as Error)?.message ?? String(error)}`, { cause: error });
    }
  }

  private stall(): void {
    this.stalled = true;
    if (this.probe !== undefined) return;
    let pinging = false;
    this.probe = setInterval(() => {
      if (pinging) return;
      pinging = true;
      void this.ping().finally(() => (pinging = false));
    }, PROBE_INTERVAL_MS);
    this.probe.unref?.();
  }

  private recovered(): void {
    this.stalled = false;
    this.stop();
  }
}

class TimedOut extends Error {}

/** The promise, or a TimedOut rejection after `ms` (the command itself is left to the client). */
function bounded<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimedOut()), ms);
  });
  // A command that settles after its bound is nobody's concern any more: its rejection must not go unhandled.
  promise.catch(() => {});
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
