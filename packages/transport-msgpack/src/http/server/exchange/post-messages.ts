import type { JSONRPCMessage, JSONRPCRequest, MessageExtraInfo, RequestId } from '../../../mcp/types.js';
import { isRequest } from '../../../jsonrpc/kinds.js';
import type { MessageCodec, WireKind } from '../../../codec/message-codec.js';
import { validated } from '../../../codec/validate.js';
import { PayloadError } from '../../../wire/errors.js';
import { acceptsPerMessage, bodyWire, postResponseWire } from '../../media.js';
import { MAX_BATCH_SIZE, readBody, type BodyResult } from './body.js';
import type { Refusal } from './responses.js';
import type { HttpRequestLike } from './server-options.js';
import { INVALID_REQUEST, PARSE_ERROR, TRANSPORT_ERROR } from '../../../jsonrpc/error-codes.js';

/** A POST body read, decoded and checked as JSON-RPC: the decoded value (for era checks) and its messages. */
export interface PostMessages {
  readonly raw: unknown;
  readonly messages: JSONRPCMessage[];
}

/** The wires of one POST: its replies' (from Accept) and its body's (from Content-Type). */
export interface PostWires {
  readonly reply: WireKind;
  readonly body: WireKind;
  /** A MessagePack reply wire whose client reads JSON too: each reply body may go in either (SPEC.md 9.6). */
  readonly perMessage: boolean;
  /**
   * Per message, on a MessagePack body: the client may not know yet that this server speaks msgpack-v1, so
   * a JSON reply must say so. A client posts JSON to a per-message server only once it knows (9.6 rule 7).
   */
  readonly signalJsonReply: boolean;
}

/** The POST's wires, or the refusal: 406 when Accept allows no full set of replies, 415 for a body in neither wire. */
export function postWires(headers: { get(name: string): string | null }): PostWires | Refusal {
  const accept = headers.get('accept');
  const reply = postResponseWire(accept);
  if (!reply) return { status: 406, code: TRANSPORT_ERROR, message: 'Not Acceptable: Client must accept both application/json and text/event-stream' };
  const encoding = contentEncodingRefusal(headers.get('content-encoding'));
  if (encoding) return encoding;
  const body = bodyWire(headers.get('content-type'));
  if (!body) return { status: 415, code: TRANSPORT_ERROR, message: 'Unsupported Media Type: Content-Type must be application/json or application/msgpack' };
  const perMessage = reply === 'msgpack' && acceptsPerMessage(accept);
  return { reply, body, perMessage, signalJsonReply: perMessage && body === 'msgpack' };
}

/**
 * A body in a content coding this server does not decode (gzip, br, ...): 415, as RFC 9110 says, so a
 * compressed body is never read as MessagePack or JSON (it would be refused as malformed at best) and a plain
 * body labelled compressed is not served as if the label were not there. `identity` is no coding.
 */
function contentEncodingRefusal(value: string | null): Refusal | undefined {
  if (value === null) return undefined;
  const codings = value
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return undefined;
  return {
    status: 415,
    code: TRANSPORT_ERROR,
    message: `Unsupported Media Type: Content-Encoding ${codings.join(', ')} is not supported; send the body uncompressed`,
    headers: { 'Accept-Encoding': 'identity' },
  };
}

/**
 * Reads a POST body into messages, or the refusal that answers it: 413 over the size cap, 400 for one that
 * does not decode, holds too many messages or is not JSON-RPC. `parsedBody` is a JSON body a framework
 * already parsed (express.json()); it still passes the session's adapter like any JSON body.
 */
export async function readPostMessages(req: HttpRequestLike, codec: MessageCodec, parsedBody: unknown, maxBodyBytes: number): Promise<PostMessages | Refusal> {
  const wire = codec.wire;
  let raw: unknown;
  if (wire === 'json' && parsedBody !== undefined) {
    raw = codec.adapter.fromWire(parsedBody, 'json', false);
  } else {
    const decoded = await readAndDecode(req, codec, maxBodyBytes);
    if (!decoded.ok) return decoded.refusal;
    raw = decoded.value;
  }
  if (Array.isArray(raw) && raw.length > MAX_BATCH_SIZE) {
    return { status: 400, code: INVALID_REQUEST, message: `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages` };
  }
  try {
    return { raw, messages: Array.isArray(raw) ? raw.map(validated) : [validated(raw)] };
  } catch (error) {
    return UNREADABLE[wire](error, 'Parse error: Invalid JSON-RPC message');
  }
}

type Decoded = { ok: true; value: unknown } | { ok: false; refusal: Refusal };

async function readAndDecode(req: HttpRequestLike, codec: MessageCodec, maxBodyBytes: number): Promise<Decoded> {
  let body: BodyResult;
  try {
    body = await readBody(req, maxBodyBytes);
  } catch (error) {
    // The client's connection broke mid-body: its fault, not a parse error, and not the server's.
    return { ok: false, refusal: { status: 400, code: TRANSPORT_ERROR, message: `Bad Request: the request body could not be read (${(error as Error)?.message ?? String(error)})`, quiet: true } };
  }
  if (body.tooLarge) {
    const message = `Payload Too Large: Request body must not exceed ${maxBodyBytes} bytes`;
    return { ok: false, refusal: { status: 413, code: TRANSPORT_ERROR, message, headers: { Connection: 'close' } } };
  }
  try {
    return { ok: true, value: codec.decodeValue(body.bytes) };
  } catch (error) {
    return { ok: false, refusal: UNREADABLE[codec.wire](error, 'Parse error: Invalid JSON') };
  }
}

/**
 * How a body that does not decode, or is not JSON-RPC, is refused on each wire: the JSON wire says exactly
 * what the SDK says; MessagePack says what went wrong, with the PayloadError's code as data.reason.
 */
const UNREADABLE: Record<WireKind, (error: unknown, sdkMessage: string) => Refusal> = {
  json: (_error, sdkMessage) => ({ status: 400, code: PARSE_ERROR, message: sdkMessage }),
  msgpack: (error) => ({ status: 400, code: PARSE_ERROR, message: `Parse error: ${(error as Error).message}`, data: reasonOf(error) }),
};

function reasonOf(error: unknown): unknown {
  return error instanceof PayloadError ? { reason: error.code } : undefined;
}

/** What the server is told about the HTTP request each message came in. */
export function requestInfoOf(req: HttpRequestLike): MessageExtraInfo['requestInfo'] {
  return { headers: Object.fromEntries(req.headers.entries()), url: new URL(req.url, 'http://localhost') };
}

/** A 2026-07-28 `subscriptions/listen` request, which the endpoint serves itself. */
export function listenRequestOf(message: JSONRPCMessage): JSONRPCRequest | undefined {
  return isRequest(message) && message.method === 'subscriptions/listen' ? message : undefined;
}

/** The id of a refused request, echoed as the SDK does so the client's call ends with the error. */
export function idOf(body: unknown): RequestId | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('method' in body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
