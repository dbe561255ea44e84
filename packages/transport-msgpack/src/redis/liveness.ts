import type { BoundedCommands } from './bounded-commands.js';

/**
 * One key per server instance, `{prefix}instance:{id}`, that lives `ttlMs` and is refreshed every third of
 * that while the instance runs. Events carry the id of the instance that stored them: an instance serving a
 * stream produced elsewhere reads this key to tell a producer that is slow from one that is gone
 * (SIGKILL, crash, network cut), in at most `ttlMs`.
 */
export class InstanceLiveness {
  private timer: ReturnType<typeof setInterval> | undefined;
  private first: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly redis: BoundedCommands,
    private readonly key: string,
    private readonly ttlMs: number,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Resolves once this instance is known alive, so no event of it is stored before its key exists. */
  ensure(): Promise<void> {
    if (this.stopped) return Promise.reject(new Error('the event store is closed'));
    this.first ??= this.refresh().then(
      () => {
        if (this.stopped) return;
        this.timer = setInterval(() => void this.refresh().catch(this.onError), Math.max(1, Math.floor(this.ttlMs / 3)));
        this.timer.unref?.();
      },
      (error: unknown) => {
        this.first = undefined; // the next event tries again
        throw error;
      },
    );
    return this.first;
  }

  /** Stops refreshing and deletes the key: streams left unanswered end at once for those who follow them. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (this.first !== undefined) await this.redis.send(this.key, ['DEL', this.key]);
  }

  private async refresh(): Promise<void> {
    await this.redis.send(this.key, ['SET', this.key, '1', 'PX', String(this.ttlMs)]);
  }
}
