import type { JSONRPCMessage } from '../../../mcp/types.js';
import type { WireKind } from '../../../codec/message-codec.js';
import type { JsonMessageCodec } from '../../../codec/json-codec.js';
import type { MsgpackMessageCodec } from '../../../codec/msgpack-codec.js';
import type { TypedWireCodecs } from '../../../codec/wire-codecs.js';
import { CanonicalEncoder } from '../../../wire/encoder.js';
import { pooledUtf8 } from '../../../buffers/pooled-text.js';
import { MSGPACK_STREAM_MEDIA_TYPE, SSE_MEDIA_TYPE } from '../../media.js';

/** Where an event's bytes go: false once the stream is gone. */
export interface EventSink {
  enqueue(bytes: Uint8Array): boolean;
}

/**
 * How one encoding writes events on a server-to-client stream; a stream picks its format once and never
 * asks which encoding it speaks.
 */
export interface EventFormat {
  readonly encoding: WireKind;
  readonly contentType: string;
  /** Writes one message (and its event id); false if a write failed. Throws, having written nothing, when it cannot be encoded. */
  message(sink: EventSink, message: JSONRPCMessage, eventId?: string): boolean;
  /** An event with an id and no message, so a client can resume from the very start of the stream. */
  prime(sink: EventSink, eventId: string, retryMs?: number): void;
  /** A keep-alive, in bytes of its own: it is written again every interval. */
  keepAlive(): Uint8Array;
}

const TEXT = new TextEncoder();

/** JSON: text/event-stream exactly as the SDK writes it. */
class SseEventFormat implements EventFormat {
  readonly encoding = 'json' as const;
  readonly contentType = SSE_MEDIA_TYPE;

  constructor(private readonly codec: JsonMessageCodec) {}

  message(sink: EventSink, message: JSONRPCMessage, eventId?: string): boolean {
    const id = eventId ? `id: ${eventId}\n` : '';
    const event = `event: message\n${id}data: ${this.codec.encodeBody(message)}\n\n`;
    // A large event in a reused buffer, which the node adapter gives back once written (pooled-text.ts).
    return sink.enqueue(pooledUtf8(event) ?? TEXT.encode(event));
  }

  prime(sink: EventSink, eventId: string, retryMs?: number): void {
    const retry = retryMs !== undefined ? `retry: ${retryMs}\n` : '';
    sink.enqueue(TEXT.encode(`id: ${eventId}\n${retry}data: \n\n`));
  }

  keepAlive(): Uint8Array {
    return TEXT.encode(': keepalive\n\n');
  }
}

let sharedControlEncoder: CanonicalEncoder | undefined;
/**
 * Control frames are a few bytes: one encoder serves every stream (its output is never overwritten), so a
 * stream costs no 64 KiB arena of its own.
 */
function controlEncoder(): CanonicalEncoder {
  return (sharedControlEncoder ??= new CanonicalEncoder());
}

/**
 * MessagePack: msgpack-v1 frames (SPEC.md, "HTTP"): a message frame, optionally preceded by a
 * control frame `{id}` naming its event id, a control frame `{prime, retry?}` for an event that carries no
 * message, and `{}` as keep-alive.
 */
class MsgpackFrameFormat implements EventFormat {
  readonly encoding = 'msgpack' as const;
  readonly contentType = MSGPACK_STREAM_MEDIA_TYPE;
  private readonly control = controlEncoder();

  constructor(private readonly codec: MsgpackMessageCodec) {}

  message(sink: EventSink, message: JSONRPCMessage, eventId?: string): boolean {
    // Large bins (native bytes) are pieces of their own, enqueued as they are: never copied into a frame.
    const pieces = this.codec.encodeFramePieces(message);
    if (eventId && !sink.enqueue(this.control.encodeFrame({ id: eventId }))) return false;
    for (const piece of pieces) if (!sink.enqueue(piece)) return false;
    return true;
  }

  prime(sink: EventSink, eventId: string, retryMs?: number): void {
    sink.enqueue(this.control.encodeFrame(retryMs !== undefined ? { prime: eventId, retry: retryMs } : { prime: eventId }));
  }

  /** A copy, not a view of the control encoder's arena, which is reused once its frames come back written. */
  keepAlive(): Uint8Array {
    return Uint8Array.from(this.control.encodeFrame({}));
  }
}

export type EventFormats = Readonly<Record<WireKind, EventFormat>>;

/** Both encodings' event formats over one connection's codecs (made once per transport). */
export function createEventFormats(codecs: TypedWireCodecs): EventFormats {
  return { msgpack: new MsgpackFrameFormat(codecs.msgpack), json: new SseEventFormat(codecs.json) };
}
