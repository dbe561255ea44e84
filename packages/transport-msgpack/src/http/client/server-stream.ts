import { isJSONRPCResultResponse } from '../../jsonrpc/kinds.js';
import type { RequestId } from '../../mcp/types.js';
import type { JsonMessageCodec } from '../../codec/json-codec.js';
import type { MessageCodec, WireKind } from '../../codec/message-codec.js';
import type { BadMessageSinks } from '../../codec/bad-message.js';
import { FrameItems } from './frame-items.js';
import type { RequestSignals } from './request-signals.js';
import { SseItems } from './sse-items.js';
import type { StreamDecoder, StreamItem, StreamSink } from './stream-items.js';

export interface StreamOptions {
  resumptionToken?: string;
  onresumptiontoken?: (token: string) => void;
  replayMessageId?: RequestId;
  /** SDK v2: the caller's abort for this one request's stream (not an error when it fires). */
  requestSignal?: AbortSignal;
  /** SDK v2: told once when this request's stream is over for any reason but requestSignal. */
  onRequestStreamEnd?: () => void;
}

/** What reading a server stream needs from the transport; as BadMessageSinks, its onmessage, onerror and post. */
export interface StreamHost extends BadMessageSinks {
  readonly codecs: { msgpack: MessageCodec; json: JsonMessageCodec };
  readonly maxMessageBytes: number;
  readonly signals: RequestSignals;
  /** The server's reconnection delay (SSE `retry`, or a prime frame's). */
  retry(ms: number): void;
  /** Resumes a stream that ended too early. */
  reconnect(options: StreamOptions): void;
}

const DECODERS: Readonly<Record<WireKind, (host: StreamHost, sink: StreamSink) => StreamDecoder>> = {
  msgpack: (host, sink) => new FrameItems(host.codecs.msgpack, host.maxMessageBytes, sink),
  json: (host, sink) => new SseItems(host.codecs.json, host.maxMessageBytes, sink),
};

/**
 * Reads a reply stream or the GET stream to its end, handing each message on as soon as its last byte
 * arrives. If it ends before the reply it was waiting for, it reconnects with Last-Event-ID (when the
 * server gave event ids, or always for the GET stream: `reconnectable`), as the SDK's client does.
 * `release` lets the request's signal go when the stream is over.
 */
export function readServerStream(body: ReadableStream<Uint8Array> | null, wire: WireKind, options: StreamOptions, reconnectable: boolean, release: () => void, host: StreamHost): void {
  if (!body) {
    release();
    options.onRequestStreamEnd?.();
    return;
  }
  void new ServerStream(options, reconnectable, release, host).read(body, wire);
}

class ServerStream {
  private lastEventId: string | undefined;
  private sawEventId = false;
  private gotResponse = false;
  /** Items decoded from the chunk just read; see deliverReady(). */
  private readonly ready: StreamItem[] = [];
  /** The signal of this connection: aborted by close(), which ends the stream on purpose. */
  private readonly closing: AbortSignal | undefined;

  constructor(
    private readonly options: StreamOptions,
    private readonly reconnectable: boolean,
    private readonly release: () => void,
    private readonly host: StreamHost,
  ) {
    this.closing = host.signals.closing;
  }

  async read(body: ReadableStream<Uint8Array>, wire: WireKind): Promise<void> {
    const reader = body.getReader();
    const decoder = DECODERS[wire](this.host, { item: (item) => void this.ready.push(item), retry: this.host.retry, bad: this.host });
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        try {
          decoder.push(value);
        } finally {
          await this.deliverReady();
        }
      }
      decoder.end();
      this.release();
      this.reconnectOrEnd();
    } catch (error) {
      this.release();
      void reader.cancel().catch(() => {});
      // close() or the caller's requestSignal ended it: nothing went wrong.
      if (this.closing?.aborted || this.options.requestSignal?.aborted) return;
      this.host.report(new Error(`SSE stream disconnected: ${String(error)}`));
      this.reconnectOrEnd();
    }
  }

  /**
   * Items decoded from one chunk are handed on one per microtask: the SDK runs notification handlers a
   * microtask late but response handlers at once, so a progress notification delivered in the same tick
   * as its result would find its handler already gone.
   */
  private async deliverReady(): Promise<void> {
    const ready = this.ready;
    for (let i = 0; i < ready.length; i++) {
      if (i > 0) await Promise.resolve();
      this.onItem(ready[i]!);
    }
    ready.length = 0;
  }

  private onItem(item: StreamItem): void {
    if (item.kind === 'event' && item.retry !== undefined) this.host.retry(item.retry);
    if (item.eventId) {
      this.lastEventId = item.eventId;
      this.sawEventId = true;
      this.options.onresumptiontoken?.(item.eventId);
    }
    if (item.kind === 'message') {
      const message = item.message;
      if (isJSONRPCResultResponse(message)) {
        this.gotResponse = true;
        if (this.options.replayMessageId !== undefined) message.id = this.options.replayMessageId;
      }
      this.host.deliver(message);
    }
  }

  /** After the stream ended: resumes it if it ended too early, else it is over (onRequestStreamEnd). */
  private reconnectOrEnd(): void {
    const { onresumptiontoken, replayMessageId, requestSignal, onRequestStreamEnd } = this.options;
    if ((this.reconnectable || this.sawEventId) && !this.gotResponse && this.host.signals.open) {
      this.host.reconnect({ resumptionToken: this.lastEventId, onresumptiontoken, replayMessageId, requestSignal, onRequestStreamEnd });
    } else {
      onRequestStreamEnd?.();
    }
  }
}
