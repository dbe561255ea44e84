// `mcp-msgpack-transport/node`: serving the HTTP endpoint on node:http (Express, Fastify's raw req/res):
// `listenNode`, McpHttpHandler's `handleNode`, and the server transport on node's req/res.
export { McpHttpHandler } from './mcp-http-handler.js';
export { HttpMsgpackServerTransport } from './http/node/node-transport.js';
export { listenNode, type RunningHttpServer } from './http/node/node-listen.js';
export type { ListenOptions } from './http/server/endpoint/listen-options.js';
