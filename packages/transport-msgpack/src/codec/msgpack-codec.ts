import type { JSONRPCMessage } from '../mcp/types.js';
import { MSGPACK_MEDIA_TYPE } from '../wire/constants.js';
import type { MsgpackDecoder } from '../wire/decoder.js';
import { RuntimeMsgpackDecoder } from './runtime-decoder.js';
import { CanonicalEncoder } from '../wire/encoder.js';
import { IDENTITY_ADAPTER, type CodecOptions, type MessageAdapter, type MessageCodec } from './message-codec.js';
import { validated } from './validate.js';
import { idFirst } from './id-first.js';

/** Encodes and decodes JSON-RPC messages as msgpack-v1 payloads and frames. No JSON text anywhere. */
export class MsgpackMessageCodec implements MessageCodec {
  readonly wire = 'msgpack' as const;
  readonly mediaType = MSGPACK_MEDIA_TYPE;
  adapter: MessageAdapter;
  private readonly encoder = new CanonicalEncoder();
  private readonly decoder: MsgpackDecoder;

  constructor(options: CodecOptions = {}) {
    this.adapter = options.adapter ?? IDENTITY_ADAPTER;
    // A message's bins stand at media fields only (SPEC.md 8.2), all of them `data` or `blob` members: any
    // other bin is refused while decoding, so a refused payload builds none (the adapter checks the full path).
    this.decoder = new RuntimeMsgpackDecoder({ maxDepth: options.maxDepth, decodeBudget: options.decodeBudget, binOnlyAtMediaKeys: true });
  }

  /** Length prefix + payload, ready for a byte stream. */
  encodeFrame(message: JSONRPCMessage): Uint8Array {
    return this.encoder.encodeFrame(idFirst(this.adapter.toWire(message, 'msgpack')));
  }

  /** encodeFrame as pieces to write in order: large bins (native bytes) go out by reference, uncopied. */
  encodeFramePieces(message: JSONRPCMessage): Uint8Array[] {
    return this.encoder.encodeFramePieces(idFirst(this.adapter.toWire(message, 'msgpack')));
  }

  /** A bare payload (an HTTP body): one message, or an array of them for a batch. */
  encodeBody(messages: JSONRPCMessage | JSONRPCMessage[]): Uint8Array {
    return this.encoder.encode(this.bodyValue(messages));
  }

  /** encodeBody as pieces, as encodeFramePieces. */
  encodeBodyPieces(messages: JSONRPCMessage | JSONRPCMessage[]): Uint8Array[] {
    return this.encoder.encodePieces(this.bodyValue(messages));
  }

  private bodyValue(messages: JSONRPCMessage | JSONRPCMessage[]): unknown {
    return Array.isArray(messages) ? messages.map((m) => idFirst(this.adapter.toWire(m, 'msgpack'))) : idFirst(this.adapter.toWire(messages, 'msgpack'));
  }

  /** Decodes one payload into a validated message; throws PayloadError (with clues) otherwise. */
  decodeMessage(payload: Uint8Array): JSONRPCMessage {
    return validated(this.decodeValue(payload));
  }

  /** Decodes one payload (a message or a batch array) without validating it. */
  decodeValue(payload: Uint8Array): unknown {
    const { value, containsBin } = this.decoder.decode(payload, this.adapter.binAllowed);
    return this.adapter.fromWire(value, 'msgpack', containsBin);
  }
}
