import type { StreamableHTTPReconnectionOptions } from '../../mcp/types.js';
import type { StreamOptions } from './server-stream.js';

export const DEFAULT_RECONNECTION: StreamableHTTPReconnectionOptions = {
  initialReconnectionDelay: 1000,
  maxReconnectionDelay: 30000,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: 2,
};

export interface ReconnectHost {
  /** Opens the stream again (the transport's GET with Last-Event-ID). */
  reopen(options: StreamOptions): Promise<void>;
  report(error: Error): void;
}

/** Resumes streams that ended too early: after the server's `retry`, else with exponential backoff, a few times. */
export class Reconnection {
  /** The server's reconnection delay, which wins over the backoff when given. */
  serverRetryMs: number | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly settings: StreamableHTTPReconnectionOptions,
    private readonly host: ReconnectHost,
  ) {}

  schedule(options: StreamOptions, attempt: number): void {
    const maxRetries = this.settings.maxRetries;
    if (attempt >= maxRetries) {
      this.host.report(new Error(`Maximum reconnection attempts (${maxRetries}) exceeded.`));
      options.onRequestStreamEnd?.();
      return;
    }
    this.timer = setTimeout(() => {
      if (options.requestSignal?.aborted) return;
      this.host.reopen(options).catch((error) => {
        if (options.requestSignal?.aborted) return;
        this.host.report(new Error(`Failed to reconnect SSE stream: ${error instanceof Error ? error.message : String(error)}`));
        this.schedule(options, attempt + 1);
      });
    }, this.delay(attempt));
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private delay(attempt: number): number {
    const { initialReconnectionDelay, reconnectionDelayGrowFactor, maxReconnectionDelay } = this.settings;
    return this.serverRetryMs ?? Math.min(initialReconnectionDelay * reconnectionDelayGrowFactor ** attempt, maxReconnectionDelay);
  }
}
