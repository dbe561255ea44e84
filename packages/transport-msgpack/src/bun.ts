// `mcp-msgpack-transport/bun`: serving the HTTP endpoint on Bun.serve: `listenBun`, McpHttpHandler's `handleBun`.
export { McpHttpHandler } from './mcp-http-handler.js';
export { listenBun, type RunningBunServer } from './http/bun/bun-listen.js';
export type { ListenOptions } from './http/server/endpoint/listen-options.js';
