import type { JSONRPCMessage, RequestId } from '../../../mcp/types.js';
import type { MessageCodec, WireCodecs } from '../../../codec/message-codec.js';
import { createWireCodecs } from '../../../codec/wire-codecs.js';
import { INTERNAL_ERROR, SESSION_NOT_FOUND, TRANSPORT_ERROR } from '../../../jsonrpc/error-codes.js';
import { Buffer } from '../../../runtime/buffer.js';
import { runtime } from '../../../runtime/current.js';
import { JSON_MEDIA_TYPE, MSGPACK_IANA_MEDIA_TYPE, MSGPACK_MEDIA_TYPE, WIRE_HEADER, WIRE_HEADER_VALUE } from '../../media.js';
import type { EventStream } from './event-stream.js';
import { LazyBodyResponse } from './lazy-response.js';
import { EventStoreUnavailableError, StreamNotResumableError } from './shared-event-store.js';
import type { HttpRequestLike } from './server-options.js';

// Every Response the server makes is made here: a refusal (the one way an error leaves), a reply in one
// body, a stream's head, and the bodies in memory the runtime adapters write themselves.

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
 * per-message signal (SPEC.md 9.6) is a parameter of Accept, so Accept covers it; Accept-Encoding picks the
 * content coding (http/server/coded-reply.ts).
 */
const VARY = 'Accept, Content-Type, Accept-Encoding';

export function respond(status: number, body: ResponseBody, headers: Record<string, string>): Response {
  headers.Vary = VARY;
  // A body in memory leaves without the copies new Response(body) would make (see bytesResponse).
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

/** The codec of a reply body: the POST's reply encoding, or chosen per body when the client reads both (SPEC.md 9.6). */
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

/**
 * Whether the client asked for MessagePack replies: Accept lists application/msgpack (or the IANA name
 * application/vnd.msgpack), and not after application/json (a client that lists JSON first prefers it).
 * Substring tests of the lowercased header, as the SDK does for JSON; neither name is a substring of the other or of the stream type.
 * The encoding of every refusal, and the first test of a POST's reply encoding.
 */
export function prefersMsgpack(header: string | null): boolean {
  if (!header) return false;
  const accept = header.toLowerCase(); // media type names are case-insensitive (SPEC.md 9.1)
  const msgpack = firstOf(accept.indexOf(MSGPACK_MEDIA_TYPE), accept.indexOf(MSGPACK_IANA_MEDIA_TYPE));
  if (msgpack < 0) return false;
  const json = accept.indexOf(JSON_MEDIA_TYPE);
  return json < 0 || msgpack < json;
}

/** The smaller of two indexOf results that are not -1; -1 when both are. */
function firstOf(a: number, b: number): number {
  return a < 0 ? b : b < 0 ? a : Math.min(a, b);
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

// Bodies in memory: responses whose body is already in memory (every reply but the streams). The Fetch spec makes
// `new Response(bytes)` copy its body, and reading it back with arrayBuffer() copies again: for a 5 MiB
// media result that is two copies and two extra 5 MiB buffers per call. Here the body is a stream over the
// same bytes, and the bytes are remembered so the server adapters (node-adapter.ts, bun-adapter.ts) write
// them directly. A body comes as pieces (see CanonicalEncoder.encodePieces): large native bytes are pieces of
// their own, never copied.

/** A body in memory: pieces of bytes, or JSON text (which node:http writes as it is, with no Buffer of its own). */
export type InMemoryBody = readonly Uint8Array[] | string;

const bodyOfResponse = new WeakMap<Response, InMemoryBody>();
/** Responses whose bytes the runtime's Response already holds (a copy of its own): see bytesResponse. */
const copiedIn = new WeakSet<Response>();

/**
 * Below this many bytes, where the runtime's Response is what goes out (no adapter writes the pieces), a
 * reply is copied into it whole: the Fetch spec copies a byte body when the Response is made, which for a
 * few KB costs less than a stream's machinery (on Bun, making the stream, cancelling it and a second
 * Response in the Bun adapter; docs/MEASUREMENTS.md, lab notes, "Our HTTP server on Bun.serve against the
 * SDK's"). The Bun adapter's own threshold.
 */
export const WHOLE_REPLY_BYTES = 64 * 1024;

function bytesResponse(pieces: readonly Uint8Array[], status: number, headers: Record<string, string>): Response {
  let length = 0;
  for (const piece of pieces) length += piece.byteLength;
  if (!runtime.adapterWritesReplyText && length < WHOLE_REPLY_BYTES) {
    const response = new Response((pieces.length === 1 ? pieces[0]! : new Blob([...pieces] as BlobPart[])) as BodyInit, { status, headers });
    copiedIn.add(response);
    return remember(response, pieces);
  }
  const stream = () =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) if (piece.byteLength > 0) controller.enqueue(piece);
        controller.close();
      },
    });
  // The node adapter writes the pieces and reads the header record: the stream is made only if asked for.
  // Elsewhere the runtime itself may send the Response (Bun.serve, Deno, Workers), reading its own body
  // slot rather than a getter, so it gets a real one.
  if (runtime.adapterWritesReplyText) return remember(new LazyBodyResponse(status, headers, length, () => new Response(stream())), pieces);
  return remember(new Response(stream(), { status, headers: { ...headers, 'Content-Length': String(length) } }), pieces);
}

/**
 * A JSON reply. On Node the text stays a string for the node adapter, which writes a small one as it is and
 * encodes a large one into a reused buffer (pooled-text.ts); a Buffer.from(text) here would be one more
 * fresh allocation per reply for V8 to account and collect (measured: with it a 1 MB JSON reply cost more
 * server CPU than the SDK's own server). The UTF-8 bytes are made only if something other than the node
 * adapter reads the body. The response's length is the text's UTF-8 length, which the node adapter relies on;
 * a coded reply (coded-reply.ts) encodes the text once, for its coder, and never measures it.
 */
function textResponse(text: string, status: number, headers: Record<string, string>): Response {
  if (!runtime.adapterWritesReplyText) return remember(new Response(text, { status, headers }), text);
  const make = () => new Response(Buffer.from(text, 'utf8'));
  // Measured when the adapter writes the text, not here: a reply that is content-coded never needs it.
  return remember(new LazyBodyResponse(status, headers, () => Buffer.byteLength(text, 'utf8'), make), text);
}

function remember(response: Response, body: InMemoryBody): Response {
  bodyOfResponse.set(response, body);
  return response;
}

/**
 * The in-memory body of a response made by bytesResponse or textResponse (or passed on with carryBytes): for
 * the adapters, and for the handler, which takes such a reply as complete once made (on every runtime).
 */
export function inMemoryBody(response: Response): InMemoryBody | undefined {
  return bodyOfResponse.get(response);
}

/** Whether the response holds a copy of its in-memory body (bytesResponse): its pieces may go back at once. */
export function holdsCopy(response: Response): boolean {
  return copiedIn.has(response);
}

/** Marks `wrapper` as having the same in-memory body as `original` (for responses that wrap another). */
export function carryBytes(original: Response, wrapper: Response): Response {
  const body = bodyOfResponse.get(original);
  if (body !== undefined) bodyOfResponse.set(wrapper, body);
  return wrapper;
}
