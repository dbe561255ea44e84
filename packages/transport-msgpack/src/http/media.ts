import { MSGPACK_MEDIA_TYPE } from '../wire/constants.js';

/**
 * Media type of a streamed MessagePack response and of the GET stream: a sequence of msgpack-v1 frames
 * (SPEC.md, "HTTP"). It plays the part text/event-stream plays for JSON.
 */
export const MSGPACK_STREAM_MEDIA_TYPE = 'application/vnd.mcp-msgpack.stream';
export const JSON_MEDIA_TYPE = 'application/json';
export const SSE_MEDIA_TYPE = 'text/event-stream';
export { MSGPACK_MEDIA_TYPE };
/**
 * The name IANA registered for MessagePack in 2024, which other MessagePack HTTP stacks use. A receiver
 * reads it as MSGPACK_MEDIA_TYPE wherever that is read (a body's Content-Type, a reply's, Accept); this
 * package sends MSGPACK_MEDIA_TYPE, the only name a 0.1.0 peer reads (SPEC.md 9.1).
 */
export const MSGPACK_IANA_MEDIA_TYPE = 'application/vnd.msgpack';

/**
 * What a MessagePack-capable client that expects MessagePack replies sends (0.1.0's client): MessagePack
 * first, JSON after it for servers without it.
 */
export const MSGPACK_CLIENT_ACCEPT = `${MSGPACK_MEDIA_TYPE}, ${MSGPACK_STREAM_MEDIA_TYPE}, ${JSON_MEDIA_TYPE}, ${SSE_MEDIA_TYPE}`;

/**
 * Per-message encoding (SPEC.md 9.6). A client that reads a one-body reply in either encoding says so with
 * this parameter on the MessagePack media range of its Accept; only then may a server answer a
 * MessagePack-preferring POST in JSON. A 0.1.0 client never sends it, so it keeps getting MessagePack; a
 * server that does not know it reads the Accept as 0.1.0's (it matches media types by substring), and a
 * stock JSON server never looks at that range. A parameter rather than a header of its own: no extra header
 * line per request, and `Vary: Accept` already covers it.
 */
export const PER_MESSAGE_PARAMETER = 'replies=any';
/** Our client's Accept on the MessagePack wire: MSGPACK_CLIENT_ACCEPT, saying it reads either encoding. */
// Without 0.1.0's spaces after the commas: a few bytes less on every request, and every reader splits on commas.
export const MSGPACK_PER_MESSAGE_ACCEPT = `${MSGPACK_MEDIA_TYPE};${PER_MESSAGE_PARAMETER},${MSGPACK_STREAM_MEDIA_TYPE},${JSON_MEDIA_TYPE},${SSE_MEDIA_TYPE}`;
/**
 * A msgpack-v1 server sends this header with a JSON reply it chose for a client that reads either
 * encoding and posted MessagePack (so may not know the server yet): that client tells it from a JSON-only
 * server's reply (which makes it fall back to JSON for good). A MessagePack reply says the same by its
 * Content-Type, and a client posts JSON to such a server only once it knows, so those go without.
 */
export const WIRE_HEADER = 'mcp-msgpack-wire';
export const WIRE_HEADER_VALUE = 'v1';

/** Whether a response comes from a msgpack-v1 server: the signal header (WIRE_HEADER, any version) or a MessagePack body. */
export function fromMsgpackServer(headers: { get(name: string): string | null }): boolean {
  if (headers.get(WIRE_HEADER) !== null) return true;
  const type = mediaTypeEssence(headers.get('content-type'));
  return type === MSGPACK_MEDIA_TYPE || type === MSGPACK_STREAM_MEDIA_TYPE;
}

/**
 * The media type without parameters, lower-cased; undefined when absent or ambiguous (joined duplicates).
 * The IANA name `application/vnd.msgpack` comes back as `application/msgpack`, so every reader of a body's
 * or reply's type takes both names as one.
 */
export function mediaTypeEssence(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const semicolon = header.indexOf(';');
  const essence = (semicolon < 0 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  if (essence === '' || essence.includes(',') || (semicolon >= 0 && header.slice(semicolon).includes(','))) return undefined;
  return essence === MSGPACK_IANA_MEDIA_TYPE ? MSGPACK_MEDIA_TYPE : essence;
}
