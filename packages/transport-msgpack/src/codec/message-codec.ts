import type { JSONRPCMessage } from '../mcp/types.js';
import type { ReceiveLimits } from '../wire/receive-limits.js';

export type WireKind = 'msgpack' | 'json';

/**
 * Where the native-bytes extension (or any other message-level layer) plugs into a connection: every
 * outgoing message passes through toWire before encoding, every decoded value through fromWire before
 * validation. The identity adapter is used when nothing is negotiated.
 */
export interface MessageAdapter {
  toWire(message: JSONRPCMessage, wire: WireKind): unknown;
  fromWire(value: unknown, wire: WireKind, containsBin: boolean): unknown;
  /** Whether a MessagePack bin may arrive on this connection right now. */
  readonly binAllowed: boolean;
  /**
   * Whether an outgoing message is only right on MessagePack (media as bytes, an answer confirming an
   * extension negotiated there): the per-message encoding sends it so, whatever its shape.
   */
  needsMsgpack?(message: JSONRPCMessage): boolean;
  /** Client on a stdio connection that may upgrade (SPEC.md 7.1): see AdvertisementProbe. */
  readonly advertisementProbe?: AdvertisementProbe;
}

/**
 * A client's way to learn an advertisement that the wire upgrade hid (SPEC.md 8.1 rules 6-7): when the
 * upgrade is accepted in the answer to a 2026-07-28 request, that answer was a JSON line and advertised
 * nothing, so the transport asks again with a request of its own on the new wire, whose answer the
 * application never sees. The stdio connection drives it; the native-bytes adapter provides it.
 */
export interface AdvertisementProbe {
  /** The upgrade was settled by `answer`: the request to send first on the new wire, if any. */
  settled(answer: JSONRPCMessage, accepted: boolean): JSONRPCMessage | undefined;
  /** Whether an incoming message answers that request (it is then the transport's, not the application's). */
  answers(message: JSONRPCMessage): boolean;
  /** Before a message is sent: what it must wait for (a request with media, until the answer is in). */
  ready(message: JSONRPCMessage): Promise<void> | undefined;
  /** The connection ended: no answer will come, and nothing waits any longer. */
  end(): void;
}

export const IDENTITY_ADAPTER: MessageAdapter = {
  toWire: (message) => message,
  fromWire: (value) => value,
  binAllowed: false,
};

/** `maxDepth` and `decodeBudget` as in ReceiveLimits (the size cap is the framing's). */
export interface CodecOptions extends Pick<ReceiveLimits, 'maxDepth' | 'decodeBudget'> {
  adapter?: MessageAdapter;
}

/**
 * What both wires do alike: a body (one message or a batch) to bytes and back, through the connection's
 * adapter. Callers pick a codec by wire once (`codecs[wire]`) and then never ask which wire it is; what
 * does differ by wire (stdio framing, event-stream syntax) lives with the framing, not here.
 */
export interface MessageCodec {
  readonly wire: WireKind;
  /** The body's media type on HTTP. */
  readonly mediaType: string;
  adapter: MessageAdapter;
  /** One body, in one piece (a request body). */
  encodeBody(messages: JSONRPCMessage | JSONRPCMessage[]): Uint8Array | string;
  /** One body as pieces to write in order (MessagePack keeps large bins by reference) or as text. */
  encodeBodyPieces(messages: JSONRPCMessage | JSONRPCMessage[]): Uint8Array[] | string;
  /** Decodes one body (a message or a batch array) without validating it; throws PayloadError. */
  decodeValue(bytes: Uint8Array): unknown;
  /** Decodes and validates one message; throws PayloadError (with clues) otherwise. */
  decodeMessage(bytes: Uint8Array): JSONRPCMessage;
}

/** One codec per wire, sharing one adapter: index it by the wire a peer chose. */
export type WireCodecs = Readonly<Record<WireKind, MessageCodec>>;
