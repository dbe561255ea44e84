import { McpHttpHandler as NodeMcpHttpHandler } from './http/node/node-handler.js';
import { bunEntry } from './http/bun/bun-handler.js';

/**
 * The MCP endpoint with an entry for each runtime's server: `handle` (any fetch handler: Deno, Hono, a
 * Worker), `handleNode` (node:http, Express, Fastify's raw req/res) and `handleBun` (Bun.serve). The endpoint
 * itself is web-standard (WebMcpHttpHandler); each runtime's adapter (http/node/, http/bun/) moves bytes in
 * and out. `mcp-msgpack-transport/node` and `/bun` export it with their own entry only.
 */
export class McpHttpHandler extends NodeMcpHttpHandler {
  /**
   * Handles a request for Bun.serve: `Bun.serve({ fetch: (req) => handler.handleBun(req) })`. As `handle`,
   * but a reply in memory goes out the way Bun.serve writes fastest, and lent bytes come back once it has
   * them (bun-adapter.ts). Only for responses returned to Bun.serve itself: give `handle`'s to anything else.
   */
  handleBun = bunEntry((req, options) => this.handle(req, options));
}
