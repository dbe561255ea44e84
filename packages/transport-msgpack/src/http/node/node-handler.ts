import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '../../mcp/types.js';
import { WebMcpHttpHandler } from '../server/handler.js';
import { serveNodeRequest } from './node-adapter.js';

/**
 * The MCP endpoint with its node:http entry, `handleNode` (node:http, Express, Fastify's raw req/res), as
 * `mcp-msgpack-transport/node` exports it; the package root's McpHttpHandler adds `handleBun`.
 */
export class McpHttpHandler extends WebMcpHttpHandler {
  handleNode = (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody?: unknown): Promise<void> =>
    serveNodeRequest((request, options) => this.handle(request, options), req, res, parsedBody);
}
