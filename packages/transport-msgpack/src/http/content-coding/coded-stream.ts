import { giveBackAll } from '../../buffers/lent-bytes.js';
import type { CodingStreamEncoder } from '../../runtime/content-codings.js';

const NOT_YET: unique symbol = Symbol('not yet');
const notYet = Promise.resolve(NOT_YET);

/**
 * An event stream's bytes through one compression context, flushed at each event: a pull takes the chunks
 * already queued (every piece of an event is queued at once: EventStream writes an event in one call), codes
 * them and flushes, so the event leaves whole without waiting for the next one, and later events compress
 * against earlier ones. A chunk not yet there is left for the next pull. Where a wrapper passes chunks on
 * one at a time (afterBody), an event's pieces may flush apart: a few bytes more, never a wait.
 */
export function codedEventStream(source: ReadableStream<Uint8Array>, encoder: CodingStreamEncoder, ended: () => void = () => {}): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  let over = false;
  /** `ended` once, however the stream ends: closed, cancelled, or failed. */
  const finish = () => {
    if (over) return;
    over = true;
    ended();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          await pullCoded(controller);
        } catch (error) {
          if (!over) encoder.destroy();
          finish();
          throw error;
        }
      },
      cancel(reason) {
        if (!over) encoder.destroy();
        finish();
        return reader.cancel(reason);
      },
    },
    // Nothing coded ahead of the reader: a pull means the last chunk was taken.
    { highWaterMark: 0 },
  );

  async function pullCoded(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    let result = await (pending ?? reader.read());
    pending = undefined;
    const written: Uint8Array[] = [];
    while (!result.done) {
      encoder.write(result.value);
      written.push(result.value);
      const next = reader.read();
      // Settled already when a chunk was queued (the read is served from the queue at once).
      const ready = await Promise.race([next, notYet]);
      if (ready === NOT_YET) {
        pending = next;
        break;
      }
      result = ready;
    }
    const coded = result.done ? await encoder.end() : await encoder.flush();
    // The encoder has read them all: lent bytes (a pooled event) can go back.
    giveBackAll(written);
    for (const chunk of coded) if (chunk.byteLength > 0) controller.enqueue(chunk);
    if (result.done) {
      finish();
      controller.close();
    }
  }
}

/**
 * A stream encoder made on its first use: a coded stream that carries nothing before it closes (a 2025-11-25
 * session's GET stream on a runtime that sends headers before any chunk, for all of a short session) makes no
 * compression context. Made then, it gets the same calls in the same order, so its bytes are the ones an
 * encoder made up front gives. On Node a Brotli context made and dropped unused cost about 0.06-0.08 ms of the
 * server per session opening (docs/MEASUREMENTS.md, 2026-12-07, "The session opening's CPU"), and it held
 * its buffers for the stream's life.
 */
export function encoderOnFirstUse(make: () => CodingStreamEncoder): CodingStreamEncoder {
  let made: CodingStreamEncoder | undefined;
  // Destroyed before its first use (the client went away first): a pull still in flight then finds it gone, as
  // it finds a destroyed context, and none is made for it.
  let dropped = false;
  const gone = () => Promise.reject(new Error('the stream encoder was destroyed'));
  return {
    write: (bytes) => {
      if (!dropped) (made ??= make()).write(bytes);
    },
    flush: () => (dropped && !made ? gone() : (made ??= make()).flush()),
    end: () => (dropped && !made ? gone() : (made ??= make()).end()),
    destroy: () => {
      dropped = true;
      made?.destroy();
    },
  };
}
