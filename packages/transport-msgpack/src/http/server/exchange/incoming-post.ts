import type { JSONRPCMessage, JSONRPCRequest, MessageExtraInfo, RequestId, RequestInfo } from '../../../mcp/types.js';
import { isRequest } from '../../../jsonrpc/kinds.js';
import type { MessageCodec, WireKind } from '../../../codec/message-codec.js';
import type { TypedWireCodecs } from '../../../codec/wire-codecs.js';
import { NOT_JSON_RPC, checkJsonRpcMessage } from '../../../jsonrpc/validate.js';
import { PayloadError } from '../../../wire/errors.js';
import { joinPieces } from '../../../wire/pieces.js';
import { INVALID_REQUEST, PARSE_ERROR, TRANSPORT_ERROR } from '../../../jsonrpc/error-codes.js';
import { JSON_MEDIA_TYPE, MSGPACK_MEDIA_TYPE, MSGPACK_STREAM_MEDIA_TYPE, SSE_MEDIA_TYPE, mediaTypeEssence } from '../../media.js';
import { classifyEra, type RequestEra } from './era.js';
import { isRefusal, prefersMsgpack, type Refusal } from './responses.js';
import type { HttpHandleOptions, HttpRequestLike } from './server-options.js';
import type { ContentCoding } from '../../../runtime/content-codings.js';
import { contentEncodingsOf, knownCoding } from '../../content-coding/accept-encoding.js';
import { decodeRequestBody } from '../../content-coding/request-body.js';

// A POST read and checked once, in one pass: its media types (Accept, Content-Type, Content-Encoding), its
// body (capped, decoded, checked as JSON-RPC), its era (the body against the headers). The result is one
// value the transport carries to the path and the reply; nothing here is read or checked again.

/** Most messages accepted in one batch, as in the SDK. */
export const MAX_BATCH_SIZE = 100;

/** What every message of one POST is handed to the server with. */
export type RequestExtra = Pick<MessageExtraInfo, 'authInfo' | 'requestInfo' | 'request'>;

/** The encodings of one POST: its replies' (from Accept) and its body's (from Content-Type). */
export interface PostEncodings {
  readonly reply: WireKind;
  readonly body: WireKind;
  /** A MessagePack reply encoding whose client reads JSON too: each one-body reply may go in either (SPEC.md 9.6). */
  readonly perMessage: boolean;
  /**
   * Per message, on a MessagePack body: the client may not know yet that this server speaks msgpack-v1, so
   * a JSON reply must say so. A client posts JSON to a per-message server only once it knows (9.6 rule 7).
   */
  readonly signalJsonReply: boolean;
  /** The body's content coding, one the server takes (PostReading.codings); undefined for none. */
  readonly bodyCoding?: ContentCoding;
}

/** One POST, read and checked: what its path admits and its reply answers. */
export interface IncomingPost {
  readonly encodings: PostEncodings;
  readonly messages: JSONRPCMessage[];
  /** Whether a message is a request (else notifications and responses only, answered 202). */
  readonly hasRequests: boolean;
  /** The path the body was classified for: sessions (2025-11-25 and before) or per-request (a modern revision). */
  readonly era: 'session' | 'modern';
  /** The id of a lone request, echoed by a refusal of it as the SDK does; null otherwise. */
  readonly id: RequestId | null;
  /** A lone 2026-07-28 `subscriptions/listen` request, which the endpoint serves itself. */
  readonly listen: JSONRPCRequest | undefined;
  readonly extra: RequestExtra;
}

/** What reading a POST takes from its transport. */
export interface PostReading {
  readonly codecs: TypedWireCodecs;
  /** The request body cap (`maxMessageBytes`). */
  readonly maxBodyBytes: number;
  /** The modern revisions served: a body claiming another is refused (-32022). */
  readonly revisions: readonly string[];
  /** The content codings a body may come in (decoded within `maxBodyBytes`); any other is refused 415. */
  readonly codings: readonly ContentCoding[];
}

/**
 * Reads one POST, or the refusal that answers it: 406 when Accept allows no full set of replies, 415 for a
 * body in neither encoding or in a content coding, 413 over the size cap, 400 for a body that does not
 * decode, holds too many messages or is not JSON-RPC, and the era check's refusals (era.ts). `requestEra`
 * is what the headers say, read once per request.
 */
export async function readIncomingPost(req: HttpRequestLike, reading: PostReading, options: HttpHandleOptions, requestEra: RequestEra): Promise<IncomingPost | Refusal> {
  const encodings = postEncodings(req.headers, reading.codings);
  if (isRefusal(encodings)) return encodings;
  const body = await readMessages(req, reading.codecs[encodings.body], options.parsedBody, reading.maxBodyBytes, encodings.bodyCoding);
  if (isRefusal(body)) return body;
  const id = idOf(body.raw);
  const era = classifyEra(requestEra, req.headers, body.raw, reading.revisions);
  if (era.kind === 'refuse') return { ...era.refusal, id };
  const { messages } = body;
  return {
    encodings,
    messages,
    hasRequests: messages.some(isRequest),
    era: era.kind,
    id,
    listen: era.kind === 'modern' && messages.length === 1 ? listenRequestOf(messages[0]!) : undefined,
    extra: { authInfo: options.authInfo, requestInfo: requestInfoOf(req), request: req },
  };
}

/** The POST's encodings, or the refusal: 406 when Accept allows no full set of replies, 415 for a body in neither. */
function postEncodings(headers: { get(name: string): string | null }, codings: readonly ContentCoding[]): PostEncodings | Refusal {
  const accept = headers.get('accept');
  const reply = postReplyEncoding(accept);
  if (!reply) return { status: 406, code: TRANSPORT_ERROR, message: 'Not Acceptable: Client must accept both application/json and text/event-stream' };
  const bodyCoding = requestBodyCoding(headers.get('content-encoding'), codings);
  if (typeof bodyCoding === 'object') return bodyCoding;
  const body = bodyEncoding(headers.get('content-type'));
  if (!body) return { status: 415, code: TRANSPORT_ERROR, message: 'Unsupported Media Type: Content-Type must be application/json or application/msgpack' };
  const perMessage = reply === 'msgpack' && acceptsPerMessage(accept);
  return { reply, body, perMessage, signalJsonReply: perMessage && body === 'msgpack', bodyCoding };
}

/** A POST's reply encoding, or undefined when Accept does not allow a full set of replies (406). */
export function postReplyEncoding(header: string | null): WireKind | undefined {
  // Media type names are case-insensitive (RFC 9110 8.3.1; SPEC.md 9.1).
  const accept = header?.toLowerCase() ?? null;
  if (prefersMsgpack(accept) && accept!.includes(MSGPACK_STREAM_MEDIA_TYPE)) return 'msgpack';
  if (accept?.includes(JSON_MEDIA_TYPE) && accept.includes(SSE_MEDIA_TYPE)) return 'json';
  return undefined;
}

/** `replies=any` on the MessagePack media range of an Accept (PER_MESSAGE_PARAMETER); parameter names and values are case-insensitive. */
const PER_MESSAGE_RANGE = /application\/(?:vnd\.)?msgpack\s*;[^,]*\breplies\s*=\s*"?any"?\s*(?:[;,]|$)/i;

/** Whether a request says it reads replies in either encoding (PER_MESSAGE_PARAMETER in its Accept, media.ts). */
export function acceptsPerMessage(accept: string | null): boolean {
  return accept?.includes(';') === true && PER_MESSAGE_RANGE.test(accept);
}

/** The encoding a request body is written in, from its Content-Type; undefined for anything else (415). */
export function bodyEncoding(contentType: string | null): WireKind | undefined {
  if (contentType === JSON_MEDIA_TYPE) return 'json'; // what every SDK client sends
  const essence = mediaTypeEssence(contentType);
  if (essence === JSON_MEDIA_TYPE) return 'json';
  if (essence === MSGPACK_MEDIA_TYPE) return formatVersionOf(contentType!) === '1' ? 'msgpack' : undefined;
  return undefined;
}

/** The `v` parameter of a MessagePack media type ('1' when absent): a later version of msgpack-v1 is refused. */
function formatVersionOf(header: string): string {
  const match = /;\s*v\s*=\s*"?([^";,\s]*)/i.exec(header);
  return match ? match[1]! : '1';
}

/**
 * The content coding of a body: none, one this server takes (`codings`, McpHttpHandler's `compression`),
 * or the refusal of any other (gzip, br, ... when not taken, or more than one): 415, as RFC 9110 says,
 * naming what it takes (RFC 7694), so a compressed body is never read as MessagePack or JSON (it would be
 * refused as malformed at best) and a plain body labelled compressed is not served as if the label were not
 * there. `identity` is no coding.
 */
function requestBodyCoding(value: string | null, taken: readonly ContentCoding[]): ContentCoding | undefined | Refusal {
  const codings = contentEncodingsOf(value);
  if (codings.length === 0) return undefined;
  const known = codings.length === 1 ? knownCoding(codings[0]!) : undefined;
  if (known !== undefined && taken.includes(known)) return known;
  return {
    status: 415,
    code: TRANSPORT_ERROR,
    message: `Unsupported Media Type: Content-Encoding ${codings.join(', ')} is not supported; send the body ${taken.length > 0 ? `in ${taken.join(', ')} or ` : ''}uncompressed`,
    headers: { 'Accept-Encoding': taken.length > 0 ? taken.join(', ') : 'identity' },
  };
}

/** A POST body decoded and checked as JSON-RPC: the decoded value (for the era check and the id) and its messages. */
interface BodyMessages {
  readonly raw: unknown;
  readonly messages: JSONRPCMessage[];
}

/**
 * Reads a POST body into messages, or the refusal that answers it. `parsedBody` is a JSON body a framework
 * already parsed (express.json()); it still passes the transport's adapter like any JSON body.
 */
async function readMessages(req: HttpRequestLike, codec: MessageCodec, parsedBody: unknown, maxBodyBytes: number, coding: ContentCoding | undefined): Promise<BodyMessages | Refusal> {
  let raw: unknown;
  // A framework that parsed the body (express.json()) decoded its coding too.
  if (codec.wire === 'json' && parsedBody !== undefined) {
    raw = codec.adapter.fromWire(parsedBody, 'json', false);
  } else {
    const decoded = await readAndDecode(req, codec, maxBodyBytes, coding);
    if (!decoded.ok) return decoded.refusal;
    raw = decoded.value;
  }
  if (Array.isArray(raw) && raw.length > MAX_BATCH_SIZE) {
    return { status: 400, code: INVALID_REQUEST, message: `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages` };
  }
  const problem = checkMessages(raw);
  if (problem !== undefined) return UNREADABLE[codec.wire](new PayloadError('not-json-rpc', `${NOT_JSON_RPC}: ${problem}`), 'Parse error: Invalid JSON-RPC message');
  return { raw, messages: (Array.isArray(raw) ? raw : [raw]) as JSONRPCMessage[] };
}

/**
 * Why a body is not JSON-RPC (for a batch, its first message that is not one), or undefined. Checked here,
 * once per message, and not through codec/validate.ts's throwing wrapper: a refusal is a value, and a POST's
 * says nothing of the message's clues (the id it echoes is idOf's).
 */
function checkMessages(raw: unknown): string | undefined {
  if (!Array.isArray(raw)) return checkJsonRpcMessage(raw);
  for (const item of raw) {
    const problem = checkJsonRpcMessage(item);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

type Decoded = { ok: true; value: unknown } | { ok: false; refusal: Refusal };

async function readAndDecode(req: HttpRequestLike, codec: MessageCodec, maxBodyBytes: number, coding: ContentCoding | undefined): Promise<Decoded> {
  let body: Uint8Array | undefined;
  try {
    body = await readBody(req, maxBodyBytes);
  } catch (error) {
    // The client's connection broke mid-body: its fault, not a parse error, and not the server's.
    return { ok: false, refusal: { status: 400, code: TRANSPORT_ERROR, message: `Bad Request: the request body could not be read (${(error as Error)?.message ?? String(error)})`, quiet: true } };
  }
  if (body === undefined) {
    const message = `Payload Too Large: Request body must not exceed ${maxBodyBytes} bytes`;
    return { ok: false, refusal: { status: 413, code: TRANSPORT_ERROR, message, headers: { Connection: 'close' } } };
  }
  if (coding !== undefined) {
    const decoded = await decodeRequestBody(body, coding, maxBodyBytes);
    if (decoded.ok === false) return { ok: false, refusal: { status: decoded.status, code: TRANSPORT_ERROR, message: decoded.message } };
    body = decoded.bytes;
  }
  try {
    return { ok: true, value: codec.decodeValue(body) };
  } catch (error) {
    return { ok: false, refusal: UNREADABLE[codec.wire](error, 'Parse error: Invalid JSON') };
  }
}

/**
 * Reads a request body up to maxBytes; undefined when it is larger. A Content-Length over the cap is refused
 * before a byte is read; a body without one is counted as it arrives and abandoned (not drained) as soon as
 * it passes the cap. One whose Content-Length bounds it is read in one call where the request can (a web
 * Request's arrayBuffer()), and its `body` is not touched: iterating a web stream from JavaScript costs a
 * promise and a chunk per read, and on Bun asking for `body` at all makes the stream
 * (docs/MEASUREMENTS.md, lab notes, "Our HTTP server on Bun.serve against the SDK's").
 */
async function readBody(req: HttpRequestLike, maxBytes: number): Promise<Uint8Array | undefined> {
  const contentLength = req.headers.get('content-length');
  if (Number(contentLength) > maxBytes) return undefined;
  if (contentLength !== null && req.arrayBuffer !== undefined) {
    const bytes = new Uint8Array(await req.arrayBuffer());
    // A Request made in memory may carry more than its Content-Length says.
    return bytes.byteLength > maxBytes ? undefined : bytes;
  }
  const body = req.body;
  if (body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let received = 0;
  // Leaving the loop early cancels a web stream and releases a node request (see node-adapter.ts).
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    received += chunk.byteLength;
    if (received > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : joinPieces(chunks, received).buffer;
}

/**
 * How a body that does not decode, or is not JSON-RPC, is refused in each encoding: JSON says exactly what
 * the SDK says (-32700 for both); MessagePack says what went wrong, with the PayloadError's code as
 * data.reason, and the JSON-RPC code of SPEC.md 4.3: -32700 for a body that does not decode, -32600 for one
 * that decodes to something that is not a JSON-RPC message (JSON-RPC 2.0's Invalid Request).
 */
const UNREADABLE: Record<WireKind, (error: unknown, sdkMessage: string) => Refusal> = {
  json: (_error, sdkMessage) => ({ status: 400, code: PARSE_ERROR, message: sdkMessage }),
  msgpack: (error) => {
    const invalid = error instanceof PayloadError && error.code === 'not-json-rpc';
    const message = `${invalid ? 'Invalid Request' : 'Parse error'}: ${(error as Error).message}`;
    return { status: 400, code: invalid ? INVALID_REQUEST : PARSE_ERROR, message, data: reasonOf(error) };
  },
};

function reasonOf(error: unknown): unknown {
  return error instanceof PayloadError ? { reason: error.code } : undefined;
}

/**
 * What the server is told about the HTTP request each message came in: its headers as a record and its URL,
 * each made when a handler first reads it and kept. Most handlers never read them, and made up front they
 * were a record of every header and a parsed URL on every call (docs/MEASUREMENTS.md, issue 41, "Where our
 * server's own CPU goes"). Enumerable and settable as the plain record's members were, so spreading or
 * serializing it reads the same.
 */
function requestInfoOf(req: HttpRequestLike): RequestInfo {
  let headers: RequestInfo['headers'] | undefined;
  let url: URL | undefined;
  return {
    get headers(): RequestInfo['headers'] {
      return (headers ??= Object.fromEntries(req.headers.entries()));
    },
    set headers(value: RequestInfo['headers']) {
      headers = value;
    },
    get url(): URL {
      return (url ??= new URL(req.url, 'http://localhost'));
    },
    set url(value: URL) {
      url = value;
    },
  };
}

/** A 2026-07-28 `subscriptions/listen` request, which the endpoint serves itself. */
function listenRequestOf(message: JSONRPCMessage): JSONRPCRequest | undefined {
  return isRequest(message) && message.method === 'subscriptions/listen' ? message : undefined;
}

/** The id of a refused request, echoed as the SDK does so the client's call ends with the error. */
function idOf(body: unknown): RequestId | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('method' in body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
