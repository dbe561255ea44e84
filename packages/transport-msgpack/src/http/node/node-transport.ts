import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo, JSONRPCMessage, MessageExtraInfo, RequestId, Transport, TransportSendOptions } from '../../mcp/types.js';
import type { MessageAdapter } from '../../codec/message-codec.js';
import { serveNodeRequest } from './node-adapter.js';
import { WebHttpMsgpackServerTransport, type HttpMsgpackServerOptions } from '../server/transport/server-transport.js';

/**
 * Drop-in for the SDK's StreamableHTTPServerTransport (node:http, Express, Fastify's raw req/res) that
 * also speaks MessagePack. A thin adapter over WebHttpMsgpackServerTransport.
 */
export class HttpMsgpackServerTransport implements Transport {
  private readonly web: WebHttpMsgpackServerTransport;

  constructor(options: HttpMsgpackServerOptions = {}) {
    this.web = new WebHttpMsgpackServerTransport(options);
  }

  get sessionId(): string | undefined {
    return this.web.sessionId;
  }
  get adapter(): MessageAdapter {
    return this.web.adapter;
  }
  get onclose(): (() => void) | undefined {
    return this.web.onclose;
  }
  set onclose(handler: (() => void) | undefined) {
    this.web.onclose = handler;
  }
  get onerror(): ((error: Error) => void) | undefined {
    return this.web.onerror;
  }
  set onerror(handler: ((error: Error) => void) | undefined) {
    this.web.onerror = handler;
  }
  get onmessage(): ((message: JSONRPCMessage, extra?: MessageExtraInfo) => void) | undefined {
    return this.web.onmessage;
  }
  set onmessage(handler: ((message: JSONRPCMessage, extra?: MessageExtraInfo) => void) | undefined) {
    this.web.onmessage = handler;
  }

  start(): Promise<void> {
    return this.web.start();
  }
  close(): Promise<void> {
    return this.web.close();
  }
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.web.send(message, options);
  }
  closeSSEStream(requestId: RequestId): void {
    this.web.closeSSEStream(requestId);
  }
  closeStandaloneSSEStream(): void {
    this.web.closeStandaloneSSEStream();
  }

  /** Handles one request; `parsedBody` is a body a framework already parsed as JSON (express.json()). */
  async handleRequest(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    await serveNodeRequest((request, options) => this.web.handleRequest(request, options), req, res, parsedBody);
  }
}
