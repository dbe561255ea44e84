import type { JSONRPCMessage, RequestId } from '../../../mcp/types.js';
import { isErrorResponse } from '../../../jsonrpc/kinds.js';
import { HEADER_MISMATCH, INVALID_REQUEST, METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY, PARSE_ERROR, UNSUPPORTED_PROTOCOL_VERSION } from '../../../jsonrpc/error-codes.js';
import { MSGPACK_STREAM_MEDIA_TYPE, SSE_MEDIA_TYPE } from '../../media.js';
import { refusalResponse } from '../exchange/responses.js';
import type { HttpRequestLike } from '../exchange/server-options.js';
import { isOwnListingReply } from './tool-headers.js';

/**
 * The HTTP status 2026-07-28 gives a JSON-RPC error the served SDK answers before running any handler
 * (its "ladder": SDK v2's LADDER_ERROR_HTTP_STATUS). An error a handler produces stays in-band on 200,
 * except -32021, whose 400 the spec ties to the error itself. -32602 has no entry: only the envelope
 * check (modern-check.ts) answers it with 400.
 */
const LADDER_STATUS: Readonly<Record<number, number>> = {
  [PARSE_ERROR]: 400,
  [INVALID_REQUEST]: 400,
  [METHOD_NOT_FOUND]: 404,
  [UNSUPPORTED_PROTOCOL_VERSION]: 400,
  [MISSING_REQUIRED_CLIENT_CAPABILITY]: 400,
  [HEADER_MISMATCH]: 400,
};

interface LadderError {
  status: number;
  id: RequestId | null;
  error: { code: number; message: string; data?: unknown };
}

/** What one 2026-07-28 exchange on a transport has sent so far. */
export interface ExchangeWatch {
  /** The request went to the server (a subscriptions/listen stream does not: the endpoint answers it). */
  dispatched: boolean;
  dispatching: boolean;
  sent: number;
  ladder?: LadderError;
}

interface WatchableTransport {
  onmessage?: (...args: never[]) => void;
  send(message: JSONRPCMessage, ...rest: never[]): Promise<void>;
}

const watches = new WeakMap<object, ExchangeWatch>();

/**
 * Watches the next exchange on a transport bound to 2026-07-28 (installed once, reset per exchange: a
 * reused server serves one request at a time). An error is a ladder error when it is the exchange's first
 * message and the server sent it while still dispatching the request (method not found, and the like),
 * or when it is -32021, as SDK v2's own per-request transport decides.
 */
export function watchExchange(transport: WatchableTransport): ExchangeWatch {
  let watch = watches.get(transport);
  if (!watch) {
    const state: ExchangeWatch = (watch = { dispatched: false, dispatching: false, sent: 0 });
    const onmessage = transport.onmessage;
    transport.onmessage = (...args: never[]) => {
      state.dispatched = state.dispatching = true;
      try {
        onmessage?.(...args);
      } finally {
        state.dispatching = false;
      }
    };
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, ...rest: never[]) => {
      // The transport's own in-process tools/list (tool-headers.ts) is no part of the client's exchange.
      if (isOwnListingReply(message)) return send(message, ...rest);
      if (state.sent++ === 0) state.ladder = ladderErrorOf(message, state.dispatching);
      return send(message, ...rest);
    };
    watches.set(transport, watch);
  }
  watch.dispatched = false;
  watch.sent = 0;
  watch.ladder = undefined;
  return watch;
}

function ladderErrorOf(message: JSONRPCMessage, dispatching: boolean): LadderError | undefined {
  if (!isErrorResponse(message)) return undefined;
  const { code } = message.error;
  const status = dispatching || code === MISSING_REQUIRED_CLIENT_CAPABILITY ? LADDER_STATUS[code] : undefined;
  return status === undefined ? undefined : { status, id: message.id ?? null, error: message.error };
}

/**
 * The reply to a 2026-07-28 exchange, with a ladder error's HTTP status in place of 200. A stream that has
 * carried no message yet is held until its first one (keep-alives before it, such as the one every stream
 * starts with on Bun, are held too), as SDK v2 holds its reply, since that message decides the status;
 * after it the stream goes on as it was.
 */
export async function withLadderStatus(req: HttpRequestLike, response: Response, watch: ExchangeWatch): Promise<Response> {
  if (watch.dispatched && watch.sent === 0 && response.status === 200 && response.body && isStream(response)) {
    const reader = response.body.getReader();
    const held: ReadableStreamReadResult<Uint8Array>[] = [];
    do held.push(await reader.read());
    while (watch.sent === 0 && !held.at(-1)!.done);
    if (watch.ladder === undefined) return new Response(resumed(held, reader), { status: response.status, headers: response.headers });
    void reader.cancel().catch(() => {});
    return ladderResponse(req, watch.ladder);
  }
  if (watch.ladder === undefined) return response;
  void response.body?.cancel().catch(() => {});
  return ladderResponse(req, watch.ladder);
}

function ladderResponse(req: HttpRequestLike, ladder: LadderError): Response {
  const { code, message, data } = ladder.error;
  return refusalResponse(req, { status: ladder.status, code, message, data, id: ladder.id });
}

function isStream(response: Response): boolean {
  const type = response.headers.get('content-type');
  return type === SSE_MEDIA_TYPE || type === MSGPACK_STREAM_MEDIA_TYPE;
}

/** The chunks already read, then the rest of the stream. */
function resumed(held: ReadableStreamReadResult<Uint8Array>[], reader: ReadableStreamDefaultReader<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = held.shift() ?? (await reader.read());
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
