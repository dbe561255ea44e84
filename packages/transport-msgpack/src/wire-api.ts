// `mcp-msgpack-transport/wire`: the msgpack-v1 wire (SPEC.md) for the benchmark, tools and other
// implementers. Applications need only the package's main entry point.

// Constants: wire name, media types, frame header, limits, the decode budget
export * from './wire/constants.js';
export { DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_MAX_FRAME_BYTES, type ReceiveLimits } from './wire/receive-limits.js';
export { MSGPACK_STREAM_MEDIA_TYPE, MSGPACK_CLIENT_ACCEPT } from './http/media.js';

// Errors
export * from './wire/errors.js';
export { PARSE_ERROR, INVALID_REQUEST } from './jsonrpc/error-codes.js';

// Canonical encoder and guarded decoder (SPEC.md sections 3 and 4)
export { CanonicalEncoder } from './wire/encoder.js';
export { BIN_BY_REFERENCE } from './wire/encode-pieces.js';
export type { DecodePath, DecoderOptions, DecodedPayload } from './wire/decoder.js';
// The decoder with this runtime's decode path and ASCII window as defaults (runtime/)
export { DEFAULT_DECODE_PATH, RuntimeMsgpackDecoder as MsgpackDecoder } from './codec/runtime-decoder.js';
export { guardPayload, type GuardOptions, type GuardResult } from './wire/guard.js';
export { guardedDecode, type GuardedDecodeResult } from './wire/guarded-decode.js';

// Framing: msgpack-v1 frames and MCP's JSON lines, read from a byte stream
export { FrameReader, type FrameReaderOptions } from './wire/frame-reader.js';
export { LineReader, type LineReaderOptions } from './wire/line-reader.js';
export { MixedReader, startsJsonText, type MixedKind, type MixedReaderOptions } from './wire/mixed-reader.js';

// Message codecs (bytes to JSON-RPC messages and back, on either wire) and their adapters
export { IDENTITY_ADAPTER, type MessageCodec, type WireCodecs, type MessageAdapter, type WireKind, type CodecOptions } from './codec/message-codec.js';
export { MsgpackMessageCodec } from './codec/msgpack-codec.js';
export { JsonMessageCodec } from './codec/json-codec.js';
export { createWireCodecs } from './codec/wire-codecs.js';
export { NativeBytesAdapter } from './native-bytes/adapter.js';

// JSON-RPC message check (the SDK's JSONRPCMessageSchema acceptance set, without zod) and kind guards
export { checkJsonRpcMessage, isJsonRpcMessage } from './jsonrpc/validate.js';
export {
  isJSONRPCRequest,
  isJSONRPCNotification,
  isJSONRPCResultResponse,
  isJSONRPCErrorResponse,
  isInitializeRequest,
  isInitializedNotification,
  type InitializeRequest,
} from './jsonrpc/kinds.js';
// The kind of a message already checked (what a transport's onmessage hands on), read from its shape alone
export { isRequest, isNotification, isResponse } from './jsonrpc/kinds.js';
// What counts as a plain object in a decoded message (not null, not an array, not bytes), for every check above
export { isRecord } from './jsonrpc/is-record.js';

// Negotiation: the stdio wire upgrade (SPEC.md 7.1) and the HTTP client's fallback decision
export { WIRE_UPGRADE_KEY, MSGPACK_V1, offersUpgrade, acceptsUpgrade, type WireOffer, type WireAcceptance } from './wire-choice/upgrade-offer.js';
export { wireDecision, type WireDecision, type MsgpackPostAnswer, type HttpFallbackReason } from './http/client/wire-fallback.js';
