import { JSON_MEDIA_TYPE, MSGPACK_MEDIA_TYPE, MSGPACK_STREAM_MEDIA_TYPE, SSE_MEDIA_TYPE, fromMsgpackServer, mediaTypeEssence } from '../media.js';
import { PARSE_ERROR } from '../../jsonrpc/error-codes.js';
import { readCappedBody } from './capped-body.js';

/** Why an HTTP client stopped posting MessagePack to a server (WireFallback.reason). */
import type { HttpFallbackReason } from '../../wire-choice/wire-selection.js';

export type { HttpFallbackReason };

/** What a server's answer to a MessagePack POST says about the wire; see wireDecision(). */
export type WireDecision = { wire: 'msgpack' } | { wire: 'json'; reason: HttpFallbackReason; resend: boolean } | undefined;

/** An answer to a MessagePack POST, as far as the decision needs it. */
export interface MsgpackPostAnswer {
  status: number;
  /** The Content-Type's essence (mediaTypeEssence), undefined when absent. */
  type: string | undefined;
  /** The body parsed as JSON, for a JSON body the decision reads (see needsBody); undefined otherwise. */
  json?: unknown;
  /** The response carries the msgpack-v1 server header (SPEC.md 9.6): the server speaks it, whatever this body is in. */
  msgpackServer?: boolean;
  /** The answer to the connection's first MessagePack post. */
  firstOfConnection?: boolean;
}

/**
 * Whether the server takes MessagePack, from its answer to a MessagePack POST (SPEC.md 9.2). A server that
 * speaks msgpack-v1 answers a client preferring it in MessagePack, unless that client reads both, and then
 * marks a JSON reply to a MessagePack POST with a header (9.6), so the header or any MessagePack body
 * settles the wire, and nothing after it makes the client fall back. A JSON reply with the header is a
 * per-message choice. Otherwise, the answers that show the
 * server could not take the body (each re-sent as JSON, since the server did not act on it):
 * - 415, as the SDK's and most servers answer an unknown Content-Type;
 * - 400 (the Python SDK: "Invalid Content-Type header", text/plain) and 406, in any body but MessagePack;
 * - a JSON-RPC parse error (-32700) with no id, in a JSON body, at any status: the server read our
 *   bytes as JSON text.
 * A reply in JSON or SSE to a request is a real answer, read as such, and the client speaks JSON from then
 * on ('json-reply'). A 5xx to the connection's first MessagePack post (its initialize or server/discover,
 * which are safe to send again) is sent again as JSON ('server-error'): a JSON-only server that crashes on
 * bytes it cannot parse (an HTML 500 from a framework's JSON body parser) is common, and its users expect
 * the connection to work; a server that is down answers the JSON retry with the same 5xx, which the caller
 * then sees. Anything else (401, 403, 404, a later 5xx, a 202 with no body) says nothing about the wire.
 */
export function wireDecision(answer: MsgpackPostAnswer): WireDecision {
  const { status, type } = answer;
  if (answer.msgpackServer) return { wire: 'msgpack' };
  if (type === MSGPACK_MEDIA_TYPE || type === MSGPACK_STREAM_MEDIA_TYPE) return { wire: 'msgpack' };
  if (status === 415) return { wire: 'json', reason: 'unsupported-media-type', resend: true };
  if (status === 406) return { wire: 'json', reason: 'not-acceptable', resend: true };
  if (status === 400) return { wire: 'json', reason: 'bad-request', resend: true };
  if (isAnonymousParseError(answer.json)) return { wire: 'json', reason: 'unreadable-body', resend: true };
  if (status >= 200 && status < 300 && (type === JSON_MEDIA_TYPE || type === SSE_MEDIA_TYPE)) return { wire: 'json', reason: 'json-reply', resend: false };
  if (status >= 500 && answer.firstOfConnection) return { wire: 'json', reason: 'server-error', resend: true };
  return undefined;
}

/** Whether wireDecision() needs the body of this answer: a JSON one that might be an anonymous parse error. */
export function needsBody(status: number, type: string | undefined): boolean {
  if (type !== JSON_MEDIA_TYPE || status === 400 || status === 406 || status === 415) return false;
  return status >= 400 || (status >= 200 && status < 300 && status !== 204 && status !== 205);
}

/**
 * The answer of a response for wireDecision(), and the response to go on with: when the body had to be
 * read, an unread copy of the same response.
 */
export async function readAnswer(response: Response, maxBytes: number): Promise<{ answer: MsgpackPostAnswer; response: Response }> {
  const type = mediaTypeEssence(response.headers.get('content-type'));
  if (fromMsgpackServer(response.headers)) return { answer: { status: response.status, type, msgpackServer: true }, response };
  if (!needsBody(response.status, type)) return { answer: { status: response.status, type }, response };
  const bytes = await readCappedBody(response, maxBytes);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    json = undefined; // not JSON after all: the caller's own reading reports it
  }
  const copy = new Response(bytes as Uint8Array<ArrayBuffer>, { status: response.status, statusText: response.statusText, headers: response.headers });
  return { answer: { status: response.status, type, json }, response: copy };
}

function isAnonymousParseError(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as { id?: unknown; error?: { code?: unknown } };
  return (record.id === null || record.id === undefined) && typeof record.error === 'object' && record.error !== null && record.error.code === PARSE_ERROR;
}
