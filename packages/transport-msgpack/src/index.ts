// The public API of mcp-msgpack-transport on Node and Bun: the runtime-neutral core (core.ts, which is what
// the root resolves to on Deno, Workers and in browsers, by package.json's export conditions), and the
// runtime-specific entries, each also a subpath of its own (`/stdio`, `/node`, `/bun`).
// The wire itself (encoder, decoder, guard, frame and line readers, codecs, constants) is for the
// benchmark and other implementers, at `mcp-msgpack-transport/wire`; the Redis event store at
// `mcp-msgpack-transport/redis`. Everything else is internal and may change without notice.
export * from './core.js';

// Transports over stdio, and their options (drop-ins for the SDK's StdioServerTransport and StdioClientTransport)
export {
  StdioMsgpackServerTransport,
  type StdioMsgpackServerOptions,
  StdioMsgpackClientTransport,
  type StdioMsgpackServerParameters,
  type SpawnFunction,
  getDefaultEnvironment,
  DEFAULT_INHERITED_ENV_VARS,
  type StreamWireOptions,
  JsonLineLimitError,
  STOCK_STDIO_LINE_CAP,
  DEFAULT_MAX_JSON_LINE_BYTES,
} from './stdio.js';

// The endpoint with an entry per runtime's server (`handle`, `handleNode`, `handleBun`), and the helpers that
// serve it on node:http or Bun.serve
export { McpHttpHandler } from './mcp-http-handler.js';
export { HttpMsgpackServerTransport, listenNode, type RunningHttpServer } from './node.js';
export { listenBun, type RunningBunServer } from './bun.js';
