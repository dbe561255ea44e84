import type { JSONRPCMessage } from '../../../mcp/types.js';
import type { Admission, ModernPath, ServerDispatch } from '../exchange/exchange-transport.js';
import type { EventFormats } from '../exchange/event-format.js';
import type { IncomingPost } from '../exchange/incoming-post.js';
import { SESSION_GONE, type Refusal } from '../exchange/responses.js';
import type { HttpRequestLike } from '../exchange/server-options.js';
import type { ModernEndpoint } from './modern-endpoint.js';
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
   * The endpoint sees each message first (it seeds the server's view of the client); a tools/call's
   * Mcp-Param-* headers must agree with its arguments (SEP-2243, tool-headers.ts); a lone
   * `subscriptions/listen` is served at the endpoint, in the reply's event format.
   */
  async admit(req: HttpRequestLike, post: IncomingPost, formats: EventFormats): Promise<Admission | Refusal> {
    const { messages } = post;
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

  keeps(message: JSONRPCMessage): boolean {
    return this.toolHeaders.keeps(message);
  }

  close(): void {
    this.closed = true;
    this.toolHeaders.close();
  }
}
