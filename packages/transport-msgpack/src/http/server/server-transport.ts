import { SUPPORTED_MODERN_PROTOCOL_VERSIONS } from '../../jsonrpc/envelope.js';
import type { EventStore } from '../../mcp/types.js';
import type { ModernPath, ServerDispatch } from './exchange/exchange-transport.js';
import type { HttpHandleOptions, HttpMsgpackServerOptions, HttpRequestLike } from './exchange/server-options.js';
import { RequestPath } from './per-request/request-path.js';
import { SessionTransport } from './sessions/session-transport.js';

export type { EventStore };
export type { HttpHandleOptions, HttpMsgpackServerOptions, HttpRequestLike } from './exchange/server-options.js';

/**
 * The modern path of a transport made on its own (not by an endpoint): the revisions `modernRevisions`
 * names, by default every one this package knows on a stateless transport and none on a session one.
 */
export function standaloneModernPath(options: HttpMsgpackServerOptions): ((dispatch: () => ServerDispatch | undefined) => ModernPath) | undefined {
  const revisions = options.modernRevisions ?? (options.sessionIdGenerator ? [] : SUPPORTED_MODERN_PROTOCOL_VERSIONS);
  return revisions.length > 0 ? (dispatch) => new RequestPath(revisions, undefined, dispatch) : undefined;
}

/**
 * Streamable HTTP server transport on the web standard (Request in, Response out: Bun.serve, Deno, Hono,
 * any fetch handler), speaking MessagePack to clients that ask for it and exactly the SDK's JSON to the
 * rest, at the same URL. Like the SDK's, one instance is one session (or one request, in stateless mode);
 * a stateless one also serves a request of a modern revision (2026-07-28).
 */
export class WebHttpMsgpackServerTransport extends SessionTransport {
  constructor(options: HttpMsgpackServerOptions = {}) {
    super(options, standaloneModernPath(options));
  }

  handleRequest(req: HttpRequestLike, options?: HttpHandleOptions): Promise<Response> {
    return this.handleWebRequest(req, options);
  }
}
