import type { JSONRPCMessage, RequestId } from '../mcp/types.js';
import { mapMediaFields } from '../native-bytes/media-fields.js';
import { placeholders } from '../native-bytes/registry.js';
import type { MsgpackDecoder } from '../wire/decoder.js';
import { RuntimeMsgpackDecoder } from '../codec/runtime-decoder.js';
import { CanonicalEncoder } from '../wire/encoder.js';

export interface StoredPayload {
  /**
   * The payload in pieces to store in order: large bins (media) stand as pieces of their own, the caller's
   * bytes by reference, so storing a 5 MiB image copies nothing in JavaScript. Joined, they are one payload.
   * Nothing is given back to the encoder or a pool afterwards: the media pieces belong to the message's
   * live send, and the small pieces left in the encoder's arena cost less than tracking them would.
   */
  pieces: Buffer[];
}

/**
 * Messages as a shared event store keeps them: one msgpack-v1 payload each (the MessagePack value, no
 * frame header), written by the package's canonical encoder and read back by its guarded decoder. Media
 * bytes are stored as bin, as they are: never base64, never JSON text.
 */
export class StoredMessageCodec {
  private readonly encoder = new CanonicalEncoder();
  private readonly decoder: MsgpackDecoder;

  constructor(maxDepth?: number) {
    this.decoder = new RuntimeMsgpackDecoder({ allowBin: true, maxDepth });
  }

  /**
   * The payload of `message`. A placeholder from nativeImage() & co. stands for bytes this process holds until the message
   * is sent: the bytes themselves are stored (and left for that send), so any instance can replay them.
   */
  encodeMessage(message: JSONRPCMessage): StoredPayload {
    const resolved = mapMediaFields(message, (field) => (typeof field === 'string' && placeholders.isPlaceholder(field) ? (placeholders.peek(field) ?? field) : field));
    return this.encode(resolved);
  }

  encodeRequestIds(ids: readonly RequestId[]): StoredPayload {
    return this.encode(ids);
  }

  private encode(value: unknown): StoredPayload {
    const pieces = this.encoder.encodePieces(value);
    return { pieces: pieces.map((piece) => Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength)) };
  }

  /**
   * The message a payload holds; undefined for a priming event (stored as `{}`). Media come back as
   * Uint8Array at their fields, which the transport sends as bin or base64 as the client negotiated.
   */
  decodeMessage(payload: Uint8Array): JSONRPCMessage | undefined {
    const value = this.decoder.decode(payload).value;
    return value !== null && typeof value === 'object' && 'jsonrpc' in value ? (value as JSONRPCMessage) : undefined;
  }

  decodeRequestIds(payload: Uint8Array): RequestId[] {
    const value = this.decoder.decode(payload).value;
    return Array.isArray(value) ? value.filter((id): id is RequestId => typeof id === 'string' || typeof id === 'number') : [];
  }
}
