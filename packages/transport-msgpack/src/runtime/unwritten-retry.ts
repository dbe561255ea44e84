import type { Dispatcher } from 'undici';
import { isClosedBeforeWrite } from './closed-before-write.js';

/**
 * Connection errors that can end a request undici had queued on a kept-alive connection before writing it:
 * the server (or a proxy reloading) closed or reset the idle connection as the request was about to go. Not
 * UND_ERR_CLOSED: that is the agent closed on purpose (the transport's close()).
 */
const LOST_CONNECTION = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * An undici interceptor that sends a request again, once, when its connection failed before undici began to
 * write it (F13: a kept-alive connection the server reset while the request waited its turn on it).
 *
 * How that is told apart: undici calls a handler's `onRequestStart` (its `request.onConnect`) just before it
 * writes the request's first byte to the socket (client-h1.js, writeH1). An error that arrives without it
 * failed a request still in undici's queue, which no server can have seen: undici itself fails every queued
 * request when an idle connection ends with a reset (client.js, onError). A request whose writing began is
 * never sent again here, whatever the error: it may have reached the server, and a POST is not idempotent.
 * The body is untouched too (undici reads it only while writing), so the same dispatch can be made again.
 * The other error sent again is ClosedBeforeWriteError: the connection was found closed just before the
 * first byte was written (`onRequestStart` had been called, but nothing was written; closed-before-write.ts).
 * By then undici may have begun to pull the body (fetch gives it as a one-time async iterator, read as it is
 * written), so a body given that way is read through `replayable`, which gives a second attempt the same
 * chunks from the start.
 */
export function retryUnwritten(dispatch: Dispatcher['dispatch']): Dispatcher['dispatch'] {
  return (given, handler) => {
    const options = isAsyncIterable(given.body) ? { ...given, body: replayable(given.body) as Dispatcher.DispatchOptions['body'] } : given;
    const attempt = (retried: boolean): boolean => {
      let started = false;
      return dispatch(options, {
        onRequestStart: (controller, context) => {
          started = true;
          handler.onRequestStart?.(controller, context);
        },
        onRequestUpgrade: (controller, statusCode, headers, socket) => handler.onRequestUpgrade?.(controller, statusCode, headers, socket),
        onResponseStart: (controller, statusCode, headers, statusMessage) => handler.onResponseStart?.(controller, statusCode, headers, statusMessage),
        onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
        onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
        onResponseError: (controller, error) => {
          const unwritten = isClosedBeforeWrite(error) || (!started && LOST_CONNECTION.has((error as { code?: string }).code ?? ''));
          if (unwritten && !retried) return void attempt(true);
          handler.onResponseError?.(controller, error);
        },
      });
    };
    return attempt(false);
  };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === 'function';
}

/**
 * A body each attempt reads from its start: the chunks pulled from `source` are kept (they are the request's
 * own bytes, held by it anyway) and given again to a later reader, which then goes on pulling from `source`.
 * Pulls are shared, so two readers never split the chunks between them.
 */
export function replayable(source: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]();
  const chunks: Uint8Array[] = [];
  let ended = false;
  let pulling: Promise<void> | undefined;
  const pull = () =>
    (pulling ??= iterator.next().then((next) => {
      pulling = undefined;
      if (next.done) ended = true;
      else chunks.push(next.value);
    }));
  return {
    async *[Symbol.asyncIterator]() {
      for (let index = 0; ; index++) {
        while (index >= chunks.length && !ended) await pull();
        if (index >= chunks.length) return;
        yield chunks[index]!;
      }
    },
  };
}
