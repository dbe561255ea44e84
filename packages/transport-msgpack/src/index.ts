// Transports
export { StdioMsgpackServerTransport, type StdioMsgpackServerOptions } from './stdio/server.js';
export { StdioMsgpackClientTransport, type StdioMsgpackServerParameters, type SpawnFunction } from './stdio/client.js';

// Wire core (SPEC.md): framing, canonical codec, guard, validation
export * from './wire/constants.js';
export * from './wire/errors.js';
export { CanonicalEncoder } from './wire/encoder.js';
export { MsgpackDecoder, type DecoderOptions, type DecodedPayload } from './wire/decoder.js';
export { guardPayload, type GuardOptions, type GuardResult } from './wire/guard.js';
export { FrameReader, type FrameReaderOptions } from './wire/frame-reader.js';
export { LineReader } from './wire/line-reader.js';
export { checkJsonRpcMessage, isJsonRpcMessage } from './jsonrpc/validate.js';
export {
  MsgpackMessageCodec,
  JsonMessageCodec,
  IDENTITY_ADAPTER,
  type MessageAdapter,
  type WireKind,
  type CodecOptions,
} from './codec/message-codec.js';
export { StreamConnection, detectWire, type WireChoice, type StreamWireOptions } from './connection/stream-connection.js';
export { handleBadMessage, PARSE_ERROR, INVALID_REQUEST } from './connection/bad-message.js';
