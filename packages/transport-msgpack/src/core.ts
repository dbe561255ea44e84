// The runtime-neutral core of mcp-msgpack-transport: what runs wherever fetch, Request and Response do
// (Node, Bun, Deno, Cloudflare Workers, browsers). Nothing in its module graph imports a `node:` module or
// undici (test/core-bundle.test.ts bundles it for the browser and a neutral platform to hold that). On Node
// and Bun the package root adds the runtime-specific entries; elsewhere the root is this file. Those entries
// are also subpaths of their own: `mcp-msgpack-transport/stdio`, `/node`, `/bun`.

// Which wire a transport speaks, when it has a choice
export type { WireChoice } from './wire-choice/wire-selection.js';

// The HTTP client transport, and its options (on the global fetch, or the one given)
export { HttpMsgpackClientTransport, type HttpMsgpackClientOptions, type WireFallback } from './http/client/client-transport.js';

// The web-standard HTTP server: Request in, Response out
export {
  WebHttpMsgpackServerTransport,
  type HttpMsgpackServerOptions,
  type HttpHandleOptions,
  type HttpRequestLike,
} from './http/server/server-transport.js';
export type { HostCheckOptions } from './http/server/exchange/host-check.js';
export { defaultSessionPrincipal, type SessionPrincipal } from './http/server/exchange/principal.js';
export { DEFAULT_SESSION_IDLE_TIMEOUT_MS } from './http/server/sessions/session-expiry.js';
export { DEFAULT_IDLE_RELEASE_AFTER_MS, type IdleReleaseOptions } from './http/server/idle-memory.js';
export { DEFAULT_MAX_REQUEST_BODY_BYTES, type ReceiveLimits } from './wire/receive-limits.js';

// Which wire a connection speaks, as the transports report it (`wire`, `onwireselected`)
export type { WireKind } from './codec/message-codec.js';
export type { EncodingPolicy } from './codec/encoding-policy.js';
export type { ReplyStreams } from './http/server/exchange/server-options.js';
export type { WireSelection, WireSelectionReason } from './wire-choice/wire-selection.js';
export type { HttpFallbackReason } from './http/client/wire-fallback.js';

// Limits shared by every transport's options
export { DEFAULT_MAX_DEPTH, DEFAULT_DECODE_BUDGET, type DecodeBudget } from './wire/constants.js';

// The HTTP endpoint (sessions, 2026-07-28, subscriptions/listen) as a fetch handler: `handler.handle(request)`
export { WebMcpHttpHandler, type McpHttpHandlerOptions, type ConnectableServer } from './http/server/handler.js';
export type { ListenOptions } from './http/server/listen-options.js';
export { isLoopbackAddress } from './http/server/exchange/host-check.js';

// Native bytes (SPEC.md section 8): media as MessagePack bin between peers that negotiate it
export { NATIVE_BYTES_CAPABILITY, NATIVE_BYTES_EXTENSION, NATIVE_BYTES_VERSION, type NativeBytesCapability } from './native-bytes/capability.js';
export type { NativeBytesOptions, NativeBytesRole } from './native-bytes/adapter.js';
export type { RelayedBase64Options } from './native-bytes/relayed-base64.js';
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
