import type { WireKind } from '../../codec/message-codec.js';
import { JSON_MEDIA_TYPE, MSGPACK_MEDIA_TYPE, MSGPACK_PER_MESSAGE_ACCEPT, MSGPACK_STREAM_MEDIA_TYPE, SSE_MEDIA_TYPE } from '../media.js';

/**
 * What the client asks for on each wire: the reply to a POST (one body or a stream), and the GET stream. On
 * MessagePack it reads a one-body reply in either encoding, and says so (SPEC.md 9.6).
 */
export const ACCEPT: Readonly<Record<WireKind, { post: string; get: string }>> = {
  msgpack: { post: MSGPACK_PER_MESSAGE_ACCEPT, get: `${MSGPACK_STREAM_MEDIA_TYPE}, ${SSE_MEDIA_TYPE}` },
  json: { post: `${JSON_MEDIA_TYPE}, ${SSE_MEDIA_TYPE}`, get: SSE_MEDIA_TYPE },
};

/** What a reply's media type says: the wire it is written in, and whether it is a stream rather than one body. */
export interface ReplyForm {
  wire: WireKind;
  stream: boolean;
}

const REPLY_FORMS = new Map<string, ReplyForm>([
  [JSON_MEDIA_TYPE, { wire: 'json', stream: false }],
  [MSGPACK_MEDIA_TYPE, { wire: 'msgpack', stream: false }],
  [SSE_MEDIA_TYPE, { wire: 'json', stream: true }],
  [MSGPACK_STREAM_MEDIA_TYPE, { wire: 'msgpack', stream: true }],
]);

/** The form of a reply from its Content-Type's essence (mediaTypeEssence); undefined for any other type. */
export function replyForm(type: string | undefined): ReplyForm | undefined {
  return type === undefined ? undefined : REPLY_FORMS.get(type);
}

/** The wire of a GET stream: MessagePack frames when it says so, else SSE (as the SDK's client reads it). */
export function streamWireOf(type: string | undefined): WireKind {
  const form = replyForm(type);
  return form?.stream ? form.wire : 'json';
}
