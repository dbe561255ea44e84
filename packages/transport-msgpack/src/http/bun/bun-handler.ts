import { WebMcpHttpHandler } from '../server/handler.js';
import type { HttpHandleOptions } from '../server/exchange/server-options.js';
import { bunServeResponse } from './bun-adapter.js';

/** A handler's `handle` as Bun.serve's fetch: the reply goes out the way Bun.serve writes fastest. */
export function bunEntry(handle: (req: Request, options: HttpHandleOptions) => Promise<Response>): (req: Request, options?: HttpHandleOptions) => Promise<Response> {
  return async (req, options = {}) => bunServeResponse(await handle(req, options));
}

/**
 * The MCP endpoint with its Bun.serve entry, as `mcp-msgpack-transport/bun` exports it:
 * `Bun.serve({ fetch: (req) => handler.handleBun(req) })`. As `handle`, but a reply in memory goes out the
 * way Bun.serve writes fastest, and lent bytes come back once it has them (bun-adapter.ts). Only for
 * responses returned to Bun.serve itself: give `handle`'s to anything else.
 */
export class McpHttpHandler extends WebMcpHttpHandler {
  handleBun = bunEntry((req, options) => this.handle(req, options));
}
