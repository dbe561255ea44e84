import type { JSONRPCMessage } from '../../mcp/types.js';
import type { MessageCodec } from '../../codec/message-codec.js';
import { validated } from '../../codec/validate.js';
import { receiveMessage, type PayloadReader } from '../../codec/bad-message.js';
import { FrameReader } from '../../wire/frame-reader.js';
import type { StreamDecoder, StreamSink } from './stream-items.js';

/** What decodeMessage returns for a control frame, once it has acted on it. */
const CONTROL = Symbol('control frame');

/**
 * MessagePack wire: msgpack-v1 frames (SPEC.md, "HTTP"). A control frame `{id}` names the event id of the
 * message frame that follows it; `{prime, retry?}` is an event without a message; `{}` is a keep-alive.
 * An unreadable message goes to handleBadMessage, as on stdio.
 */
export class FrameItems implements StreamDecoder, PayloadReader<JSONRPCMessage | typeof CONTROL> {
  private readonly frames: FrameReader;
  private pendingId: string | undefined;

  constructor(
    private readonly codec: MessageCodec,
    maxMessageBytes: number | undefined,
    private readonly sink: StreamSink,
  ) {
    this.frames = new FrameReader({ maxMessageBytes });
  }

  push(chunk: Uint8Array): void {
    this.frames.push(chunk, this.onPayload);
  }

  end(): void {
    this.frames.end();
  }

  private readonly onPayload = (payload: Uint8Array): void => {
    const message = receiveMessage(this, payload, this.sink.bad);
    if (message === CONTROL) return;
    // The frame was whole, so the stream goes on; its id counts as delivered even if it could not be read.
    const eventId = this.pendingId;
    this.pendingId = undefined;
    if (message) this.sink.item({ kind: 'message', message, eventId });
    else if (eventId) this.sink.item({ kind: 'event', eventId });
  };

  /** One frame's message, or CONTROL once a control frame has been acted on; throws PayloadError. */
  decodeMessage(payload: Uint8Array): JSONRPCMessage | typeof CONTROL {
    const value = this.codec.decodeValue(payload);
    if (!isControl(value)) return validated(value);
    if (typeof value.id === 'string') this.pendingId = value.id;
    if (typeof value.prime === 'string' || typeof value.retry === 'number') {
      this.sink.item({ kind: 'event', eventId: typeof value.prime === 'string' ? value.prime : undefined, retry: typeof value.retry === 'number' ? value.retry : undefined });
    }
    return CONTROL;
  }
}

function isControl(value: unknown): value is { id?: unknown; prime?: unknown; retry?: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !('jsonrpc' in value);
}
