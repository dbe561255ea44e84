import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '../../mcp/types.js';
import type { HttpMsgpackServerOptions } from '../server/exchange/server-options.js';
import { standaloneModernPath } from '../server/server-transport.js';
import { SessionTransport } from '../server/sessions/session-transport.js';
import { serveNodeRequest } from './node-adapter.js';

/**
 * Drop-in for the SDK's StreamableHTTPServerTransport (node:http, Express, Fastify's raw req/res) that
 * also speaks MessagePack: WebHttpMsgpackServerTransport with node's req and res in place of Request and
 * Response.
 */
export class HttpMsgpackServerTransport extends SessionTransport {
  constructor(options: HttpMsgpackServerOptions = {}) {
    super(options, standaloneModernPath(options));
  }

  /** Handles one request; `parsedBody` is a body a framework already parsed as JSON (express.json()). */
  async handleRequest(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    await serveNodeRequest((request, options) => this.handleWebRequest(request, options), req, res, parsedBody);
  }
}
