import { carryBytes } from './response-bytes.js';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as NodeServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthInfo, Transport } from '../mcp/types.js';
import { nodeRequest, writeNodeResponse } from './node-adapter.js';
import { errorResponse, WebHttpMsgpackServerTransport, type HttpHandleOptions, type HttpMsgpackServerOptions, type HttpRequestLike } from './server-transport.js';
import { checkHostAndOrigin } from './host-check.js';
import { IdleSessionSweeper, resolveIdleTimeout, type ExpirableSession } from './session-expiry.js';

/** What the handler connects each transport to: an McpServer or a low-level Server. */
export interface ConnectableServer {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

export interface McpHttpHandlerOptions extends Omit<HttpMsgpackServerOptions, 'sessionIdGenerator' | 'onsessioninitialized' | 'onsessionclosed'> {
  /** Makes the MCP server for a new session (or for each request when stateless). */
  createServer: () => ConnectableServer | Promise<ConnectableServer>;
  /** No sessions: every request gets a fresh server and transport (for load-balanced fleets). */
  stateless?: boolean;
  sessionIdGenerator?: () => string;
  /**
   * Closes a session (transport, then server) after this long with no request in flight and no stream
   * open, so a client that vanished without DELETE does not hold its server forever. Its id then gets
   * 404 "Session not found", which tells MCP clients to initialize a new session. Default 30 minutes;
   * 0 or Infinity never expires sessions.
   */
  sessionIdleTimeoutMs?: number;
}

interface Session extends ExpirableSession {
  transport: WebHttpMsgpackServerTransport;
  server: ConnectableServer;
}

/**
 * Serves MCP at one endpoint for many clients: routes requests to per-session transports by
 * Mcp-Session-Id (or makes one per request when stateless). Web-standard at heart: `handle` takes a
 * Request (Bun.serve, Deno, any fetch handler); `handleNode` takes node's req/res.
 */
export class McpHttpHandler {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: IdleSessionSweeper<Session> | undefined;

  constructor(private readonly options: McpHttpHandlerOptions) {
    const idleTimeoutMs = resolveIdleTimeout(options.sessionIdleTimeoutMs);
    if (idleTimeoutMs !== undefined && !options.stateless) {
      this.sweeper = new IdleSessionSweeper(idleTimeoutMs, this.sessions, (session) => this.expire(session));
    }
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** @internal Streams open across sessions (stateful mode), for leak checks. */
  get openStreamCount(): number {
    let count = 0;
    for (const session of this.sessions.values()) count += session.transport.openStreamCount;
    return count;
  }

  async handle(req: HttpRequestLike, options: HttpHandleOptions = {}): Promise<Response> {
    if (this.options.stateless) return this.handleStateless(req, options);
    const sessionId = req.headers.get('mcp-session-id');
    if (sessionId) {
      const session = this.sessions.get(sessionId);
      if (session) return this.serve(session, req, options);
      // Same checks, in the same order, a session's transport would make before saying 404.
      const refused = checkHostAndOrigin(this.options, req.headers.get('host'), req.headers.get('origin'), options.localAddress);
      if (refused) return errorResponse(req, 403, -32000, refused);
      return errorResponse(req, 404, -32001, 'Session not found');
    }
    const session = await this.open({
      sessionIdGenerator: this.options.sessionIdGenerator ?? randomUUID,
      onsessioninitialized: (id) => {
        this.sessions.set(id, session);
        this.sweeper?.ensureRunning();
      },
    });
    const response = await this.serve(session, req, options);
    if (session.transport.sessionId === undefined) {
      await this.shut(session);
    } else {
      // Keep the server's own close handler (set by connect) and forget the session after it.
      const serverOnClose = session.transport.onclose;
      session.transport.onclose = () => {
        serverOnClose?.();
        this.forget(session);
      };
    }
    return response;
  }

  handleNode = async (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody?: unknown): Promise<void> => {
    const response = await this.handle(nodeRequest(req), { parsedBody, authInfo: req.auth, localAddress: req.socket.localAddress });
    await writeNodeResponse(res, response);
  };

  async close(): Promise<void> {
    this.sweeper?.stop();
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((session) => this.shut(session)));
  }

  private async handleStateless(req: HttpRequestLike, options: HttpHandleOptions): Promise<Response> {
    const session = await this.open({ sessionIdGenerator: undefined });
    let response: Response;
    try {
      response = await session.transport.handleRequest(req, options);
    } catch (error) {
      await this.shut(session);
      throw error;
    }
    // The server lives as long as its reply: until the stream ends or the client goes away.
    return afterBody(response, () => void this.shut(session));
  }

  /** Handles one request of a session, counting it as in flight so the session cannot expire under it. */
  private async serve(session: Session, req: HttpRequestLike, options: HttpHandleOptions): Promise<Response> {
    session.inFlight++;
    try {
      return await session.transport.handleRequest(req, options);
    } finally {
      session.inFlight--;
      session.lastActive = performance.now();
    }
  }

  private async open(extra: Partial<HttpMsgpackServerOptions>): Promise<Session> {
    const { createServer: make, stateless: _stateless, sessionIdleTimeoutMs: _idle, ...transportOptions } = this.options;
    const transport = new WebHttpMsgpackServerTransport({ ...transportOptions, ...extra });
    const server = await make();
    await server.connect(transport);
    return {
      transport,
      server,
      lastActive: performance.now(),
      inFlight: 0,
      get openStreams() {
        return transport.openStreamCount;
      },
    };
  }

  /** Closes an idle session as DELETE would; it leaves the map first, so its id answers 404 at once. */
  private expire(session: Session): void {
    this.remove(session);
    void this.shut(session);
  }

  private forget(session: Session): void {
    this.remove(session);
    void session.server.close().catch(() => {});
  }

  private remove(session: Session): void {
    const id = session.transport.sessionId;
    if (id !== undefined && this.sessions.get(id) === session) this.sessions.delete(id);
  }

  private async shut(session: Session): Promise<void> {
    await session.transport.close().catch(() => {});
    await session.server.close().catch(() => {});
  }
}

/** Calls done once the response body has been fully read or cancelled (at once if it has none). */
export function afterBody(response: Response, done: () => void): Response {
  const body = response.body;
  if (!body) {
    done();
    return response;
  }
  const reader = body.getReader();
  let finished = false;
  const finish = () => {
    if (!finished) {
      finished = true;
      done();
    }
  };
  const tracked = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          controller.close();
          finish();
        } else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
        finish();
      }
    },
    async cancel(reason) {
      finish();
      await reader.cancel(reason);
    },
  }, { highWaterMark: 0 }); // read only when asked: a body the node adapter writes itself is never pulled
  return carryBytes(response, new Response(tracked, { status: response.status, headers: response.headers }));
}

export interface ListenOptions {
  /** Interface to bind. Default 127.0.0.1: loopback only, with DNS-rebinding checks on. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Path of the MCP endpoint. Default /mcp. */
  path?: string;
}

export interface RunningHttpServer {
  url: URL;
  server: NodeServer;
  close(): Promise<void>;
}

/** Starts a node:http server for the handler, on loopback unless told otherwise. */
export async function listenNode(handler: McpHttpHandler, options: ListenOptions = {}): Promise<RunningHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const server = createServer((req, res) => {
    if ((req.url ?? '/').split('?', 1)[0] !== path) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      return;
    }
    handler.handleNode(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: new URL(`http://${shownHost}:${address.port}${path}`),
    server,
    close: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface BunServer {
  port: number;
  stop(closeActiveConnections?: boolean): void | Promise<void>;
}
interface BunGlobal {
  serve(options: {
    hostname: string;
    port: number;
    idleTimeout?: number;
    fetch(req: Request): Response | Promise<Response>;
  }): BunServer;
}

export interface RunningBunServer {
  url: URL;
  close(): Promise<void>;
}

/** Starts Bun.serve for the handler (Bun only), on loopback unless told otherwise. */
export async function listenBun(handler: McpHttpHandler, options: ListenOptions = {}): Promise<RunningBunServer> {
  const bun = (globalThis as { Bun?: BunGlobal }).Bun;
  if (!bun) throw new Error('listenBun needs the Bun runtime');
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const server = bun.serve({
    hostname: host,
    port: options.port ?? 0,
    // Bun closes connections idle for 10 s by default, which would cut long-lived streams.
    idleTimeout: 0,
    fetch: (req) => {
      if (new URL(req.url).pathname !== path) return new Response('Not Found', { status: 404 });
      return handler.handle(req, { localAddress: host });
    },
  });
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: new URL(`http://${shownHost}:${server.port}${path}`),
    close: async () => {
      await handler.close();
      await server.stop(true);
    },
  };
}
