import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from './mcp/types.js';
import { WebMcpHttpHandler } from './http/server/endpoint/handler.js';
import type { HttpHandleOptions } from './http/server/transport/server-transport.js';
import { serveNodeRequest } from './http/node/node-adapter.js';
import { bunServeResponse } from './http/bun/bun-adapter.js';

/**
 * The MCP endpoint with an entry for each runtime's server: `handle` (any fetch handler: Deno, Hono, a
 * Worker), `handleNode` (node:http, Express, Fastify's raw req/res) and `handleBun` (Bun.serve). The endpoint
 * itself is web-standard (WebMcpHttpHandler); the runtime adapters only move bytes in and out.
 */
export class McpHttpHandler extends WebMcpHttpHandler {
  handleNode = (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody?: unknown): Promise<void> =>
    serveNodeRequest((request, options) => this.handle(request, options), req, res, parsedBody);

  /**
   * Handles a request for Bun.serve: `Bun.serve({ fetch: (req) => handler.handleBun(req) })`. As `handle`,
   * but a reply in memory goes out the way Bun.serve writes fastest, and lent bytes come back once it has
   * them (bun-adapter.ts). Only for responses returned to Bun.serve itself: give `handle`'s to anything else.
   */
  handleBun = async (req: Request, options: HttpHandleOptions = {}): Promise<Response> => bunServeResponse(await this.handle(req, options));
}
