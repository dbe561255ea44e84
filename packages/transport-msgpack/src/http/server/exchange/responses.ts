import type { JSONRPCMessage, RequestId } from '../../../mcp/types.js';
import type { MessageCodec, WireCodecs } from '../../../codec/message-codec.js';
import { createWireCodecs } from '../../../codec/wire-codecs.js';
import { WIRE_HEADER, WIRE_HEADER_VALUE, prefersMsgpack } from '../../media.js';
import type { EventStream } from './event-stream.js';
import { EventStoreUnavailableError, StreamNotResumableError } from './shared-event-store.js';
import { bytesResponse, textResponse } from './response-bytes.js';
import type { HttpRequestLike } from './server-options.js';
import { INTERNAL_ERROR, SESSION_NOT_FOUND, TRANSPORT_ERROR } from '../../../jsonrpc/error-codes.js';

/** A request turned away: the HTTP status and the JSON-RPC error that answer it. */
export interface Refusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly headers?: Record<string, string>;
  readonly data?: unknown;
  /** The refused request's id, when it is known (else null). */
  readonly id?: RequestId | null;
  /** Answered without a report through onerror (the SDK reports every other refusal). */
  readonly quiet?: boolean;
}

export function isRefusal(value: object): value is Refusal {
  return 'status' in value && 'code' in value;
}

/** A closed session (or one closed while the request waited): answered, not reported. */
export const SESSION_GONE: Refusal = { status: 404, code: SESSION_NOT_FOUND, message: 'Session not found', quiet: true };

/**
 * A failure on the server's side while answering (its event store unreachable or stalled, its own code
 * throwing): 503 for an unavailable store, 500 otherwise, with the JSON-RPC internal error (-32603) and the
 * reason, never the client's parse error. A resume the store cannot serve without a gap is 410.
 */
export function serverFailure(error: unknown): Refusal {
  const detail = error instanceof Error ? error.message : String(error);
  if (error instanceof StreamNotResumableError) return { status: 410, code: TRANSPORT_ERROR, message: `Gone: ${detail}`, data: { reason: error.reason }, quiet: true };
  if (error instanceof EventStoreUnavailableError) {
    return { status: 503, code: INTERNAL_ERROR, message: 'Internal error: the event store is unavailable', data: { reason: error.reason, detail }, headers: { 'Retry-After': '1' }, quiet: true };
  }
  return { status: 500, code: INTERNAL_ERROR, message: 'Internal error', data: { reason: 'server-error', detail }, quiet: true };
}

export type ResponseBody = string | Uint8Array[] | ReadableStream<Uint8Array> | null;

/**
 * Replies differ by these request headers: caches must never hand one client's encoding to another. The
 * per-message signal (SPEC.md 9.6) is a parameter of Accept, so Accept covers it.
 */
const VARY = 'Accept, Content-Type';

export function respond(status: number, body: ResponseBody, headers: Record<string, string>): Response {
  headers.Vary = VARY;
  // A body in memory leaves without the copies new Response(body) would make (see response-bytes.ts).
  if (typeof body === 'string') return textResponse(body, status, headers);
  if (Array.isArray(body)) return bytesResponse(body, status, headers);
  return new Response(body, { status, headers });
}

export function sessionHeaders(sessionId: string | undefined): Record<string, string> {
  return sessionId !== undefined ? { 'mcp-session-id': sessionId } : {};
}

/** Per-message replies (SPEC.md 9.6): each body's codec, and whether a JSON one carries the signal header. */
export interface PerMessageReply {
  choose(body: JSONRPCMessage | JSONRPCMessage[]): MessageCodec;
  readonly signalJson: boolean;
}

/** The codec of a reply body: the POST's wire, or chosen per body when the client reads both (SPEC.md 9.6). */
export type ReplyCodec = MessageCodec | PerMessageReply;

/** The replies to one POST as one body (enableJsonResponse, or a subscriptions/listen error). */
export function singleResponse(reply: ReplyCodec, sessionId: string | undefined, body: JSONRPCMessage | JSONRPCMessage[]): Response {
  const perMessage = 'choose' in reply;
  const codec = perMessage ? reply.choose(body) : reply;
  const headers = sessionHeaders(sessionId);
  headers['Content-Type'] = codec.mediaType;
  // A JSON reply chosen for a client that may not know yet says the server speaks msgpack-v1, so the client
  // does not take it for a JSON-only server's; a MessagePack reply says so by its Content-Type (SPEC.md 9.6).
  if (perMessage && reply.signalJson && codec.wire === 'json') headers[WIRE_HEADER] = WIRE_HEADER_VALUE;
  return respond(200, codec.encodeBodyPieces(body), headers);
}

export function streamResponse(stream: EventStream, sessionId: string | undefined): Response {
  return respond(200, stream.readable, {
    ...sessionHeaders(sessionId),
    'Content-Type': stream.contentType,
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
}

/** For errors answered before any session (and its adapter) is known. */
const ERROR_CODECS = createWireCodecs();

/**
 * The one way an error leaves the server: a Refusal as a JSON-RPC error body (id null unless the request's id
 * is known), in the encoding the client asked for, with the refusal's status and headers. `codecs`: the
 * session's (with its adapter), or, before any session is known, plain ones. `jsonrpc` and `id` come first,
 * as SPEC.md 5.2 asks of every sender, so a reader can recover the id before the rest (the SDK's server puts
 * the id last; the members and values are the same).
 */
export function refusalResponse(req: HttpRequestLike, refusal: Refusal, codecs: WireCodecs = ERROR_CODECS): Response {
  const { status, code, message, data } = refusal;
  const error = data === undefined ? { code, message } : { code, message, data };
  const value = { jsonrpc: '2.0', id: refusal.id ?? null, error } as unknown as JSONRPCMessage;
  const all: Record<string, string> = { ...refusal.headers, Vary: VARY };
  const codec = codecs[prefersMsgpack(req.headers.get('accept')) ? 'msgpack' : 'json'];
  all['Content-Type'] = codec.mediaType;
  return new Response(codec.encodeBody(value) as BodyInit, { status, headers: all });
}
