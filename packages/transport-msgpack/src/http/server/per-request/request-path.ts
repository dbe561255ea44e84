import type { JSONRPCMessage, JSONRPCRequest } from '../../../mcp/types.js';
import type { ModernPath, RequestExtra, ServerDispatch } from '../exchange/exchange-transport.js';
import type { EventFormat } from '../exchange/event-format.js';
import type { EventStream } from '../exchange/event-stream.js';
import type { Refusal } from '../exchange/responses.js';
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

  async admit(req: HttpRequestLike, messages: JSONRPCMessage[], extra: RequestExtra): Promise<Refusal | undefined> {
    if (this.endpoint) for (const message of messages) this.endpoint.beforeServing(message);
    for (const message of messages) {
      // SEP-2243: a tools/call's Mcp-Param-* headers must agree with its arguments (tool-headers.ts).
      const refused = await this.toolHeaders.refusal(message, req.headers, { ...extra });
      if (refused) return refused;
    }
    return undefined;
  }

  listen(request: JSONRPCRequest, format: EventFormat, signal?: AbortSignal): EventStream | JSONRPCMessage | undefined {
    return this.endpoint?.listen(request, format, signal);
  }

  keeps(message: JSONRPCMessage): boolean {
    return this.toolHeaders.keeps(message);
  }

  close(): void {
    this.toolHeaders.close();
  }
}
