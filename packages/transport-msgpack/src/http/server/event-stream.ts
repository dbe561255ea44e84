import type { JSONRPCMessage } from '../../mcp/types.js';
import type { JsonMessageCodec } from '../../codec/json-codec.js';
import type { MsgpackMessageCodec } from '../../codec/msgpack-codec.js';
import { CanonicalEncoder } from '../../wire/encoder.js';
import { pooledUtf8 } from '../../buffers/pooled-text.js';
import { MSGPACK_STREAM_MEDIA_TYPE, SSE_MEDIA_TYPE } from '../media.js';
import { runtime } from '../../runtime/current.js';

/** Default interval between keep-alives on an open stream (the SDK's SSE default). */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;
const MAX_TIMER_MS = 2 ** 31 - 1;
const TEXT = new TextEncoder();
let sharedControlEncoder: CanonicalEncoder | undefined;
/**
 * Control frames are a few bytes: one encoder serves every stream (its output is never overwritten), so a
 * stream costs no 64 KiB arena of its own.
 */
function controlEncoder(): CanonicalEncoder {
  return (sharedControlEncoder ??= new CanonicalEncoder());
}

/**
 * One open server-to-client stream: the reply stream of a POST or the standalone GET stream. The JSON wire
 * writes SSE exactly as the SDK does; the MessagePack wire writes msgpack-v1 frames (SPEC.md, "HTTP"):
 * a message frame, optionally preceded by a control frame `{id}` naming its event id, a control frame
 * `{prime, retry?}` for an event that carries no message, and `{}` as keep-alive.
 */
export class EventStream {
  readonly readable: ReadableStream<Uint8Array>;
  readonly contentType: string;
  /** Event ids sent during a replay; live sends of the same ids are skipped. */
  replayedEventIds: Set<string> | undefined;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private timer: ReturnType<typeof setInterval> | undefined;
  private done = false;
  private readonly text = TEXT;
  private readonly control = controlEncoder();
  private readonly signal: AbortSignal | undefined;
  private readonly onAbort: (() => void) | undefined;

  /**
   * `signal` is the request's, where the server gives one that fires when the client goes away (Bun.serve
   * does): some servers cancel a response stream only when a later write fails, which can be a
   * keep-alive interval later.
   */
  constructor(
    private readonly codec: MsgpackMessageCodec | JsonMessageCodec,
    onCancel: (stream: EventStream) => void,
    signal?: AbortSignal,
  ) {
    this.contentType = codec.wire === 'msgpack' ? MSGPACK_STREAM_MEDIA_TYPE : SSE_MEDIA_TYPE;
    this.readable = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
        // Else the client would wait up to a keep-alive interval for the status and session id (Bun.serve).
        if (runtime.streamHeadersWaitForFirstChunk) controller.enqueue(this.keepAliveBytes());
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
    if (this.codec.wire === 'json') {
      const id = eventId ? `id: ${eventId}\n` : '';
      const event = `event: message\n${id}data: ${this.codec.encodeBody(message)}\n\n`;
      // A large event in a reused buffer, which the node adapter gives back once written (pooled-text.ts).
      return this.enqueue(pooledUtf8(event) ?? this.text.encode(event));
    }
    // Large bins (native bytes) are pieces of their own, enqueued as they are: never copied into a frame.
    const pieces = this.codec.encodeFramePieces(message);
    if (eventId && !this.enqueue(this.control.encodeFrame({ id: eventId }))) return false;
    for (const piece of pieces) if (!this.enqueue(piece)) return false;
    return true;
  }

  /** An event with an id and no message, so a client can resume from the very start of the stream. */
  prime(eventId: string, retryMs?: number): void {
    if (this.codec.wire === 'json') {
      const retry = retryMs !== undefined ? `retry: ${retryMs}\n` : '';
      this.enqueue(this.text.encode(`id: ${eventId}\n${retry}data: \n\n`));
    } else {
      this.enqueue(this.control.encodeFrame(retryMs !== undefined ? { prime: eventId, retry: retryMs } : { prime: eventId }));
    }
  }

  startKeepAlive(intervalMs: number): void {
    if (this.done || !Number.isFinite(intervalMs) || intervalMs < 1) return;
    const beat = this.keepAliveBytes();
    this.timer = setInterval(() => {
      if (!this.enqueue(beat)) this.finish();
    }, Math.min(intervalMs, MAX_TIMER_MS));
    this.timer.unref?.();
  }

  /**
   * Written again every interval: a copy of its own, not a view of the control encoder's arena, which is
   * reused once the frames in it come back written (lent bytes are written once).
   */
  private keepAliveBytes(): Uint8Array {
    return this.codec.wire === 'json' ? this.text.encode(': keepalive\n\n') : Uint8Array.from(this.control.encodeFrame({}));
  }

  /** Ends the stream normally. */
  close(): void {
    if (this.done) return;
    this.finish();
    try {
      this.controller.close();
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

  private enqueue(bytes: Uint8Array): boolean {
    try {
      this.controller.enqueue(bytes);
      return true;
    } catch {
      return false;
    }
  }
}
