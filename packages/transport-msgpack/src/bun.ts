// `mcp-msgpack-transport/bun`: serving the HTTP endpoint on Bun.serve: `listenBun`, McpHttpHandler's
// `handleBun`. Only the Bun.serve adapter (http/bun/) is in its module graph.
export { McpHttpHandler } from './http/bun/bun-handler.js';
export { listenBun, type RunningBunServer } from './http/bun/bun-listen.js';
export type { ListenOptions } from './http/server/listen-options.js';
