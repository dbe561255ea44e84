import { isResponse } from '../../../jsonrpc/kinds.js';
import type { JSONRPCMessage, TransportSendOptions } from '../../../mcp/types.js';
import type { Admission, ModernPath, ServerDispatch } from '../exchange/exchange-transport.js';
import type { EventFormats } from '../exchange/event-format.js';
import type { IncomingPost } from '../exchange/incoming-post.js';
import { SESSION_GONE, type Refusal } from '../exchange/responses.js';
import type { HttpRequestLike } from '../exchange/server-options.js';
import type { ModernEndpoint } from './modern-endpoint.js';
import { nameHeaderRefusal } from './param-headers.js';
import { ToolHeaderCatalog } from './tool-headers.js';

/**
 * What a transport does with a request of a modern revision: the endpoint's part (seeding the server's view
 * of the client, `subscriptions/listen`, serving one request after another), when an endpoint made the
 * transport, and the Mcp-Param-* check against the tools the server lists.
 */
export class RequestPath implements ModernPath {
  private readonly toolHeaders: ToolHeaderCatalog;
  private closed = false;

  constructor(
    readonly revisions: readonly string[],
    private readonly endpoint: ModernEndpoint | undefined,
    dispatch: () => ServerDispatch | undefined,
  ) {
    this.toolHeaders = new ToolHeaderCatalog(dispatch);
  }

  get sequential(): boolean {
    return this.endpoint?.sequential ?? false;
  }

  /**
   * A request's Mcp-Name must agree with the body before anything else sees it (SEP-2243, param-headers.ts);
   * then the endpoint sees each message (it seeds the server's view of the client); a tools/call's
   * Mcp-Param-* headers must agree with its arguments (tool-headers.ts); a lone `subscriptions/listen` is
   * served at the endpoint, in the reply's event format.
   */
  async admit(req: HttpRequestLike, post: IncomingPost, formats: EventFormats): Promise<Admission | Refusal> {
    const { messages } = post;
    for (const message of messages) {
      const refused = nameHeaderRefusal(message, req.headers);
      if (refused) return { ...refused, id: post.id };
    }
    if (this.endpoint) for (const message of messages) this.endpoint.beforeServing(message);
    for (const message of messages) {
      const refused = await this.toolHeaders.refusal(message, req.headers, { ...post.extra });
      if (refused) return { ...refused, id: post.id };
    }
    // The transport closed while the listing was read: no listen stream is opened for nobody.
    if (this.closed) return SESSION_GONE;
    const listening = post.listen && this.endpoint?.listen(post.listen, formats[post.encodings.reply], req.signal);
    return { listening };
  }

  /**
   * The catalog sees every message first (a tools/list_changed forgets its listing). 2026-07-28 has no GET
   * stream: on a transport the endpoint made for modern requests, a message related to no request of the
   * exchange (a notification the server sends on its own, say) reaches no client, so it is dropped, as SDK
   * v2's per-request transport drops it, instead of being held for a stream that never opens or written to
   * the event store under the one standalone stream id every per-request transport shares. Changes reach
   * clients on `subscriptions/listen` streams (the handler's `notify`).
   */
  keeps(message: JSONRPCMessage, options?: TransportSendOptions): boolean {
    if (this.toolHeaders.keeps(message)) return true;
    return this.endpoint !== undefined && !isResponse(message) && options?.relatedRequestId === undefined;
  }

  close(): void {
    this.closed = true;
    this.toolHeaders.close();
  }
}
