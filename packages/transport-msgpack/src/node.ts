// `mcp-msgpack-transport/node`: serving the HTTP endpoint on node:http (Express, Fastify's raw req/res):
// `listenNode`, McpHttpHandler's `handleNode`, and the server transport on node's req/res. Only the node:http
// adapter (http/node/) is in its module graph.
export { McpHttpHandler } from './http/node/node-handler.js';
export { HttpMsgpackServerTransport } from './http/node/node-transport.js';
export { listenNode, type RunningHttpServer } from './http/node/node-listen.js';
export type { ListenOptions } from './http/server/listen-options.js';
