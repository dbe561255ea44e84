import type { JSONRPCMessage, JSONRPCRequest } from '../../../mcp/types.js';
import type { EventFormat } from '../exchange/event-format.js';
import type { EventStream } from '../exchange/event-stream.js';

/**
 * What the endpoint (WebMcpHttpHandler) does for a transport it makes to serve 2026-07-28 requests, given
 * to the transport once, when it is made. 2026-07-28 has no session, so what outlives one request (a kept
 * server instance, the listen streams) belongs to the endpoint, not to the transport.
 */
export interface ModernEndpoint {
  /**
   * Serve one request after another (never two at once) instead of exactly one: the endpoint keeps the
   * transport, connected to its server, between requests.
   */
  readonly sequential: boolean;
  /** Each 2026-07-28 message, before it is handed to the server (the endpoint seeds the server's view of the client). */
  beforeServing(message: JSONRPCMessage): void;
  /** A `subscriptions/listen` request, served at the endpoint: a stream to hold open, or the error that answers it. */
  listen(request: JSONRPCRequest, format: EventFormat, signal?: AbortSignal): EventStream | JSONRPCMessage;
}
