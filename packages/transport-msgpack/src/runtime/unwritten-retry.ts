import type { Dispatcher } from 'undici';

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
 */
export function retryUnwritten(dispatch: Dispatcher['dispatch']): Dispatcher['dispatch'] {
  return (options, handler) => {
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
          if (!started && !retried && LOST_CONNECTION.has((error as { code?: string }).code ?? '')) return void attempt(true);
          handler.onResponseError?.(controller, error);
        },
      });
    };
    return attempt(false);
  };
}
