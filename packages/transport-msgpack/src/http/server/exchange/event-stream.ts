import type { JSONRPCMessage } from '../../../mcp/types.js';
import type { EventFormat, EventSink } from './event-format.js';
import { runtime } from '../../../runtime/current.js';

/** Default interval between keep-alives on an open stream (the SDK's SSE default). */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The stream's controller as an event sink: a write to a stream the client left reports false. */
class ControllerSink implements EventSink {
  controller!: ReadableStreamDefaultController<Uint8Array>;

  enqueue(bytes: Uint8Array): boolean {
    try {
      this.controller.enqueue(bytes);
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * One open server-to-client stream: the reply stream of a POST, the standalone GET stream or a
 * `subscriptions/listen` stream, written in its encoding's event format (event-format.ts).
 */
export class EventStream {
  readonly readable: ReadableStream<Uint8Array>;
  readonly contentType: string;
  /** Event ids sent during a replay; live sends of the same ids are skipped. */
  replayedEventIds: Set<string> | undefined;
  private readonly sink = new ControllerSink();
  private timer: ReturnType<typeof setInterval> | undefined;
  private done = false;
  private readonly signal: AbortSignal | undefined;
  private readonly onAbort: (() => void) | undefined;

  /**
   * `signal` is the request's, where the server gives one that fires when the client goes away (Bun.serve
   * does): some servers cancel a response stream only when a later write fails, which can be a
   * keep-alive interval later.
   */
  constructor(
    private readonly format: EventFormat,
    onCancel: (stream: EventStream) => void,
    signal?: AbortSignal,
  ) {
    this.contentType = format.contentType;
    this.readable = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.sink.controller = controller;
        // Else the client would wait up to a keep-alive interval for the status and session id (Bun.serve).
        if (runtime.streamHeadersWaitForFirstChunk) controller.enqueue(format.keepAlive());
      },
      cancel: () => {
        // The client went away: stop everything that would write to it.
        this.finish();
        onCancel(this);
      },
    });
    if (signal && !signal.aborted) {
      this.signal = signal;
      this.onAbort = () => {
        if (this.done) return;
        this.close();
        onCancel(this);
      };
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  get closed(): boolean {
    return this.done;
  }

  /** Writes one message; false if the stream is gone or the message could not be encoded (reported by caller). */
  send(message: JSONRPCMessage, eventId?: string): boolean {
    if (this.done) return false;
    return this.format.message(this.sink, message, eventId);
  }

  /** An event with an id and no message, so a client can resume from the very start of the stream. */
  prime(eventId: string, retryMs?: number): void {
    this.format.prime(this.sink, eventId, retryMs);
  }

  startKeepAlive(intervalMs: number): void {
    if (this.done || !Number.isFinite(intervalMs) || intervalMs < 1) return;
    const beat = this.format.keepAlive();
    this.timer = setInterval(
      () => {
        if (!this.sink.enqueue(beat)) this.finish();
      },
      Math.min(intervalMs, MAX_TIMER_MS),
    );
    this.timer.unref?.();
  }

  /** Ends the stream normally. */
  close(): void {
    if (this.done) return;
    this.finish();
    try {
      this.sink.controller.close();
    } catch {
      // already closed or errored
    }
  }

  private finish(): void {
    this.done = true;
    if (this.onAbort) this.signal?.removeEventListener('abort', this.onAbort);
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}
