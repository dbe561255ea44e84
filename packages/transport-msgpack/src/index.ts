// The public API of mcp-msgpack-transport: what an application using the transports needs.
// The wire itself (encoder, decoder, guard, frame and line readers, codecs, constants) is for the
// benchmark and other implementers, at `mcp-msgpack-transport/wire`; the Redis event store at
// `mcp-msgpack-transport/redis`. Everything else is internal and may change without notice.

// Transports over stdio, and their options (drop-ins for the SDK's StdioServerTransport and StdioClientTransport)
export { StdioMsgpackServerTransport, type StdioMsgpackServerOptions } from './stdio/server.js';
export { StdioMsgpackClientTransport, type StdioMsgpackServerParameters, type SpawnFunction } from './stdio/client.js';
export { getDefaultEnvironment, DEFAULT_INHERITED_ENV_VARS } from './stdio/default-environment.js';
export type { WireChoice, StreamWireOptions } from './connection/stream-connection.js';

// Transports over Streamable HTTP, and their options
export { HttpMsgpackClientTransport, type HttpMsgpackClientOptions, type WireFallback } from './http/client/client-transport.js';
export {
  WebHttpMsgpackServerTransport,
  type HttpMsgpackServerOptions,
  type HttpHandleOptions,
  type HttpRequestLike,
} from './http/server/server-transport.js';
export { HttpMsgpackServerTransport } from './http/node/node-transport.js';
export type { HostCheckOptions } from './http/server/host-check.js';
export { DEFAULT_SESSION_IDLE_TIMEOUT_MS } from './http/server/session-expiry.js';
export { DEFAULT_MAX_REQUEST_BODY_BYTES } from './http/server/body.js';

// Which wire a connection speaks, as the transports report it (`wire`, `onwireselected`)
export type { WireKind } from './codec/message-codec.js';
export type { WireSelection, WireSelectionReason } from './connection/wire-selection.js';
export type { HttpFallbackReason } from './http/client/wire-fallback.js';

// Limits shared by every transport's options
export { DEFAULT_MAX_DEPTH, DEFAULT_DECODE_BUDGET, type DecodeBudget } from './wire/constants.js';

// The HTTP endpoint (sessions, 2026-07-28, subscriptions/listen) and helpers that serve it on node:http or Bun.serve
export { McpHttpHandler } from './mcp-http-handler.js';
export { WebMcpHttpHandler, type McpHttpHandlerOptions, type ConnectableServer } from './http/server/handler.js';
// Serving a handler, one module per runtime
export type { ListenOptions } from './http/server/listen-options.js';
export { listenNode, type RunningHttpServer } from './http/node/node-listen.js';
export { listenBun, type RunningBunServer } from './http/bun/bun-listen.js';
export { isLoopbackAddress } from './http/server/host-check.js';

// Native bytes (SPEC.md section 8): media as MessagePack bin between peers that negotiate it
export { NATIVE_BYTES_CAPABILITY, NATIVE_BYTES_VERSION, type NativeBytesCapability } from './native-bytes/capability.js';
export type { NativeBytesOptions, NativeBytesRole } from './native-bytes/adapter.js';
export { nativeBytes, nativeImage, nativeAudio, nativeBlobContents, nativeBlobResource } from './native-bytes/content.js';
export { configureNativeBytes, placeholders as nativeBytesPlaceholders, type PlaceholderLimits } from './native-bytes/registry.js';
export { callToolNative, readResourceNative, getPromptNative, createMessageNative } from './native-bytes/requests.js';
export * from './native-bytes/schemas.js';
export { NativeBytesPool, type NativeBytesPoolOptions } from './buffers/pool.js';

// Errors: what onerror receives (framing and payload), and what the HTTP client throws
export { FramingError, PayloadError, type FramingErrorCode, type PayloadErrorCode, type MessageClues } from './wire/errors.js';
export { StreamableHTTPError, type HttpErrorData } from './http/errors.js';

// SDK-compatible types: structural, so the transports fit SDK v1's and v2's Client, Server and McpServer
export type * from './mcp/types.js';
