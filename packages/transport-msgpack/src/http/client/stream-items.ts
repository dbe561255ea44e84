import type { JSONRPCMessage } from '../../mcp/types.js';
import type { BadMessageSinks } from '../../codec/bad-message.js';

/** One decoded thing from a server stream, whichever wire it came on. */
export type StreamItem = { kind: 'message'; message: JSONRPCMessage; eventId?: string } | { kind: 'event'; eventId?: string; retry?: number };

/** Where a stream decoder puts what it reads. */
export interface StreamSink {
  /** Each item, in order; handed on after the chunk (see server-stream.ts). */
  item(item: StreamItem): void;
  /** The server's reconnection delay, taken at once. */
  retry(ms: number): void;
  /** Messages that could not be read; the stream goes on. */
  bad: BadMessageSinks;
}

/** Turns a server stream's chunks into StreamItems: SSE on the JSON wire, msgpack-v1 frames on MessagePack. */
export interface StreamDecoder {
  push(chunk: Uint8Array): void;
  /** The stream ended; throws if it ended inside a frame. */
  end(): void;
}
