// Transports
export { StdioMsgpackServerTransport, type StdioMsgpackServerOptions } from './stdio/server.js';
export { StdioMsgpackClientTransport, type StdioMsgpackServerParameters, type SpawnFunction } from './stdio/client.js';

// Wire core (SPEC.md): framing, canonical codec, guard, validation
export * from './wire/constants.js';
export * from './wire/errors.js';
export { CanonicalEncoder, BIN_BY_REFERENCE } from './wire/encoder.js';
export { MsgpackDecoder, type DecoderOptions, type DecodedPayload } from './wire/decoder.js';
export { guardPayload, type GuardOptions, type GuardResult } from './wire/guard.js';
export { FrameReader, type FrameReaderOptions } from './wire/frame-reader.js';
export { LineReader } from './wire/line-reader.js';
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
export * from './mcp/types.js';
export { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, DEFAULT_NEGOTIATED_PROTOCOL_VERSION } from './mcp/protocol-versions.js';
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
export { WIRE_UPGRADE_KEY, MSGPACK_V1, offersUpgrade, acceptsUpgrade, type WireOffer, type WireAcceptance } from './connection/wire-upgrade.js';
export type { WireSelection, WireSelectionReason } from './connection/wire-selection.js';

// Streamable HTTP (SPEC.md, "HTTP")
export {
  WebHttpMsgpackServerTransport,
  errorResponse,
  type HttpMsgpackServerOptions,
  type HttpHandleOptions,
  type HttpRequestLike,
} from './http/server-transport.js';
export { HttpMsgpackServerTransport } from './http/node-transport.js';
export { McpHttpHandler, listenNode, listenBun, afterBody, type RunningBunServer, type McpHttpHandlerOptions, type ConnectableServer, type ListenOptions, type RunningHttpServer } from './http/handler.js';
export { nodeRequest, writeNodeResponse } from './http/node-adapter.js';
export { type HostCheckOptions, isLoopbackAddress } from './http/host-check.js';
export { MSGPACK_STREAM_MEDIA_TYPE, MSGPACK_CLIENT_ACCEPT } from './http/media.js';
export { DEFAULT_MAX_REQUEST_BODY_BYTES } from './http/body.js';
export { DEFAULT_SESSION_IDLE_TIMEOUT_MS } from './http/session-expiry.js';

export { HttpMsgpackClientTransport, type HttpMsgpackClientOptions, type WireFallback } from './http/client-transport.js';
export { wireDecision, type WireDecision, type MsgpackPostAnswer, type HttpFallbackReason } from './http/wire-fallback.js';
export { StreamableHTTPError, type HttpErrorData } from './http/errors.js';
export { getDefaultEnvironment, DEFAULT_INHERITED_ENV_VARS } from './stdio/default-environment.js';

// Native-bytes extension (SPEC.md, "Native bytes extension"): media as MessagePack bin, negotiated
export * from './native-bytes/index.js';
