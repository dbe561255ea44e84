import type { JsonMessageCodec } from '../../codec/json-codec.js';
import { SseReader, type SseEvent } from './sse-reader.js';
import type { StreamDecoder, StreamSink } from './stream-items.js';

/** JSON wire: SSE events whose data is one JSON-RPC message. An unreadable one is reported, as the SDK's client does. */
export class SseItems implements StreamDecoder {
  private readonly sse: SseReader;

  constructor(
    private readonly codec: JsonMessageCodec,
    maxMessageBytes: number,
    private readonly sink: StreamSink,
  ) {
    this.sse = new SseReader(maxMessageBytes);
  }

  push(chunk: Uint8Array): void {
    this.sse.push(chunk, this.onEvent);
  }

  end(): void {}

  private readonly onEvent = (event: SseEvent): void => {
    if (!event.data) {
      this.sink.item({ kind: 'event', eventId: event.id, retry: event.retry });
      return;
    }
    if (event.retry !== undefined) this.sink.retry(event.retry);
    if (event.event && event.event !== 'message') return;
    try {
      this.sink.item({ kind: 'message', message: this.codec.decodeMessage(event.data), eventId: event.id });
    } catch (error) {
      if (event.id) this.sink.item({ kind: 'event', eventId: event.id });
      this.sink.bad.report(error as Error);
    }
  };
}
