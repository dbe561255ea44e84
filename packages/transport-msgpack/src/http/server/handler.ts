import { dropPooledTextBuffers } from '../../buffers/pooled-text.js';
import { SUPPORTED_MODERN_PROTOCOL_VERSIONS } from '../../jsonrpc/envelope.js';
import { TRANSPORT_ERROR } from '../../jsonrpc/error-codes.js';
import { DEFAULT_MAX_REQUEST_BODY_BYTES, resolveReceiveLimits } from '../../wire/receive-limits.js';
import { resolveCompression, type CompressionOption, type CompressionPolicy } from '../content-coding/compression-options.js';
import { runtime } from '../../runtime/current.js';
import { codedReply } from './coded-reply.js';
import { hostRefusal } from './exchange/host-check.js';
import { requestEra, type RequestEra } from './exchange/era.js';
import { SESSION_GONE, refusalResponse, serverFailure, type Refusal } from './exchange/responses.js';
import { closeInstance, serveOnce, type ConnectableServer, type ServedInstance } from './exchange/served-instance.js';
import type { HttpHandleOptions, HttpMsgpackServerOptions, HttpRequestLike } from './exchange/server-options.js';
import { canFollow } from './exchange/shared-event-store.js';
import { IdleMemoryRelease, type IdleReleaseOptions } from './idle-memory.js';
import type { ListenNotifier } from './per-request/listen-subscriptions.js';
import { ModernRequests } from './per-request/modern-requests.js';
import { WebHttpMsgpackServerTransport } from './server-transport.js';
import { resolveIdleTimeout } from './sessions/session-expiry.js';
import { SessionTable, type Session } from './sessions/session-table.js';

export type { ConnectableServer };
export { afterBody } from './exchange/served-instance.js';

export interface McpHttpHandlerOptions extends Omit<HttpMsgpackServerOptions, 'sessionIdGenerator' | 'onsessioninitialized' | 'onsessionclosed'> {
  /** Makes the MCP server for a new session (or for each request when stateless). */
  createServer: () => ConnectableServer | Promise<ConnectableServer>;
  /** No sessions: every request gets a fresh server and transport (for load-balanced fleets). */
  stateless?: boolean;
  sessionIdGenerator?: () => string;
  /**
   * Called with a session's id and its server once its initialize is admitted, before initialize is
   * answered (a throw or rejection answers it 500 instead). Sessions are a 2025-11-25 (and earlier) matter:
   * a request of a modern revision (2026-07-28) has none, and calls neither session hook.
   */
  onsessioninitialized?: (sessionId: string, server: ConnectableServer) => void | Promise<void>;
  /**
   * Called once with a session's id and its server when the session ends, whichever way it does: the
   * client's DELETE (awaited before the 200, as the SDK's transport does), idle or initialization expiry,
   * its server closing, or the handler's close() (which resolves once the hooks have). Per-session cleanup goes here (server-everything's
   * `cleanup(sessionId)`: see the README, "Session hooks"). Outside DELETE a throw or rejection is ignored
   * (the session is gone either way).
   */
  onsessionclosed?: (sessionId: string, server: ConnectableServer) => void | Promise<void>;
  /**
   * Closes a session (transport, then server) after this long with no request in flight and no stream
   * open, so a client that vanished without DELETE does not hold its server forever. Its id then gets
   * 404 "Session not found", which tells MCP clients to initialize a new session. Default 30 minutes;
   * 0 or Infinity never expires sessions.
   */
  sessionIdleTimeoutMs?: number;
  /**
   * 2026-07-28 requests: a server instance bound to the revision answers one request at a time and is
   * then kept for later ones (at most 16 idle), since making one costs more than a small call. `false`
   * makes a fresh one per request, as SDK v2's createMcpHandler does (for servers that keep per-client
   * state on the instance).
   */
  reuseServers?: boolean;
  /**
   * Most sessions open at once (stateful mode), those still being opened included. Past it, an initialize
   * is answered 503 with Retry-After and `data.reason` 'too-many-sessions', and no server is made for it;
   * open sessions are unaffected. Default 1,000 (a session idle after
   * initialize costs about 200 KiB of RSS after a full GC, so about 200 MiB at the cap); Infinity for no cap.
   */
  maxSessions?: number;
  /**
   * A session whose client has not sent `notifications/initialized` this long after initialize is closed
   * (its id then gets 404), so sessions opened and abandoned cost nothing for long. Default 10 s; 0 or
   * Infinity turns the deadline off.
   */
  sessionInitTimeoutMs?: number;
  /**
   * What the handler does once idle (no request in flight, no stream open) for `afterMs` (default 15 s):
   * it closes the 2026-07-28 servers kept for reuse and drops the pooled buffers of large JSON replies;
   * with `collectGarbage: true` it then asks the engine for a full collection (process-wide, so off by
   * default; see the README, "Memory when idle"). `false` turns the release off.
   */
  idleRelease?: IdleReleaseOptions | false;
  /**
   * HTTP content codings (README, "Compression"; SPEC.md, "Content codings"): replies compressed in the best
   * coding the client asks for and the runtime has (zstd, br, gzip), one-body replies over `minBytes` and
   * event streams flushed per event, both wires; request bodies in those codings taken within the body cap.
   * 'auto' (default): replies coded for clients that ask, except on a loopback address; true: for every
   * client that asks; false: never (a coded request body is then answered 415). An object tunes each part.
   */
  compression?: CompressionOption;
}

/** The defaults of maxSessions and sessionInitTimeoutMs, and the Retry-After of a 503 at the cap. */
export const DEFAULT_MAX_SESSIONS = 1000;
export const DEFAULT_SESSION_INIT_TIMEOUT_MS = 10_000;
const SESSION_CAP_RETRY_AFTER_S = 5;
const SESSION_CAP_REACHED: Refusal = {
  status: 503,
  code: TRANSPORT_ERROR,
  message: 'Service Unavailable: too many open sessions',
  data: { reason: 'too-many-sessions' },
  headers: { 'Retry-After': String(SESSION_CAP_RETRY_AFTER_S) },
};

/**
 * Serves MCP at one endpoint for many clients: routes each request by its era and session id, to a
 * session's transport (sessions/), to a transport of its own (stateless mode), or to the per-request path
 * of a modern revision (per-request/). Web-standard: `handle` takes a Request (any fetch handler) and
 * returns a Response; McpHttpHandler adds the node:http and Bun.serve entries.
 */
export class WebMcpHttpHandler {
  private readonly sessions: SessionTable;
  private readonly modern: ModernRequests;
  private readonly memory: IdleMemoryRelease | undefined;
  private readonly compression: CompressionPolicy;
  /** The transports' options, from the handler's. */
  private readonly transportOptions: HttpMsgpackServerOptions;
  private closed = false;

  constructor(private readonly options: McpHttpHandlerOptions) {
    // Checked now rather than when the first session's transport is made.
    resolveReceiveLimits(options, DEFAULT_MAX_REQUEST_BODY_BYTES);
    const {
      createServer: _make,
      stateless: _stateless,
      sessionIdleTimeoutMs: _idle,
      reuseServers: _reuse,
      maxSessions: _max,
      sessionInitTimeoutMs: _init,
      idleRelease: _release,
      compression: _compression,
      // The handler calls these itself, for every session and every way one ends.
      onsessioninitialized: _initialized,
      onsessionclosed: _closed,
      ...transportOptions
    } = options;
    this.compression = resolveCompression(options.compression, runtime.contentCodings);
    this.transportOptions = { ...transportOptions, requestCodings: this.compression.requestCodings };
    const idleTimeoutMs = resolveIdleTimeout(options.sessionIdleTimeoutMs);
    this.sessions = new SessionTable({
      idleTimeoutMs: options.stateless ? undefined : idleTimeoutMs,
      initTimeoutMs: options.sessionInitTimeoutMs ?? DEFAULT_SESSION_INIT_TIMEOUT_MS,
      maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
      onsessionclosed: options.onsessionclosed,
      ended: () => this.memory?.touch(),
    });
    this.modern = new ModernRequests({
      reuse: options.reuseServers !== false,
      transportOptions: this.transportOptions,
      createServer: () => options.createServer(),
      closed: () => this.closed,
      serveOnce: (instance, req, handleOptions, era, keep) => this.serveOnce(instance, req, handleOptions, era, keep),
    });
    if (options.idleRelease !== false) {
      this.memory = new IdleMemoryRelease(
        options.idleRelease ?? {},
        () => this.openStreamCount > 0 || this.modern.listenCount > 0,
        () => this.releaseIdleMemory(),
      );
    }
  }

  /** @internal Idle releases done so far (idleRelease). */
  get idleReleaseCount(): number {
    return this.memory?.releases ?? 0;
  }

  /** @internal Modern-revision servers kept for reuse right now. */
  get idleServerCount(): number {
    return this.modern.keptCount;
  }

  /** What is kept only to be reused: the next request makes it again. */
  private releaseIdleMemory(): void {
    if (this.closed) return;
    this.modern.releaseKept();
    dropPooledTextBuffers();
  }

  /**
   * Change notifications for the 2026-07-28 `subscriptions/listen` streams open at this endpoint (each gets
   * the ones its filter asked for and the served server's capabilities allow). 2025-11-25 sessions hear
   * changes from their own server instance, as before.
   */
  get notify(): ListenNotifier {
    return this.modern.notify;
  }

  /** @internal Open subscriptions/listen streams. */
  get listenCount(): number {
    return this.modern.listenCount;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** @internal Streams open across sessions (stateful mode), for leak checks. */
  get openStreamCount(): number {
    return this.sessions.openStreamCount;
  }

  /**
   * Answers one HTTP request. Whatever fails inside on the server's side (createServer throws, a server's
   * connect fails) is answered 500 with a JSON-RPC internal error (-32603) whose data names the reason, in
   * the encoding the client accepts: never a runtime's bare 500 page, and never the client's parse error.
   */
  async handle(req: HttpRequestLike, options: HttpHandleOptions = {}): Promise<Response> {
    this.memory?.begin();
    let outcome: Response | Refusal;
    try {
      outcome = await this.route(req, options);
    } catch (error) {
      outcome = serverFailure(error);
    } finally {
      this.memory?.end();
    }
    // The handler's one refusal point (a transport answers its own: ExchangeTransport.refuse).
    const response = outcome instanceof Response ? outcome : refusalResponse(req, outcome);
    const coding = { acceptEncoding: req.headers.get('accept-encoding'), outsideSession: req.headers.get('mcp-session-id') === null, localAddress: options.localAddress };
    return codedReply(response, coding, this.compression);
  }

  private async route(req: HttpRequestLike, options: HttpHandleOptions): Promise<Response | Refusal> {
    // DNS-rebinding protection, once per request and before anything else: a refused request makes no
    // server instance, and no transport checks it again (serveRouted).
    const refused = hostRefusal(this.options, req.headers, options.localAddress);
    if (refused) return refused;
    // Read once: it picks the route here, and the transport checks the body against it.
    const era = requestEra(req.headers);
    if (req.method === 'POST' && era.modern !== undefined) return this.modern.serve(req, options, era, era.modern);
    if (this.options.stateless) return this.handleStateless(req, options, era);
    const sessionId = req.headers.get('mcp-session-id');
    if (sessionId) {
      const session = this.sessions.get(sessionId);
      // Another principal's session is refused before its body is read, as an unknown one is.
      if (session) return session.transport.madeBy(options.authInfo) ? this.serve(session, req, options, era) : SESSION_GONE;
      // A resume of a session that lives, or lived, on another instance: its streams are in a shared store.
      if (req.method === 'GET' && req.headers.get('last-event-id') && canFollow(this.options.eventStore)) return this.handleStateless(req, options, era);
      return SESSION_GONE;
    }
    if (this.sessions.full) return SESSION_CAP_REACHED;
    return this.sessions.opened((added) => this.openSession(req, options, era, added));
  }

  /** A request without a session id (an initialize, or refused by the new session's transport). */
  private async openSession(req: HttpRequestLike, options: HttpHandleOptions, era: RequestEra, added: () => void): Promise<Response> {
    const session: Session = await this.open({
      // A modern body without its headers lands here (the headers route those): it gets -32020.
      modernRevisions: SUPPORTED_MODERN_PROTOCOL_VERSIONS,
      sessionIdGenerator: this.options.sessionIdGenerator ?? (() => crypto.randomUUID()),
      onsessioninitialized: async (id) => {
        this.sessions.add(id, session);
        added();
        await this.options.onsessioninitialized?.(id, session.server);
      },
      // DELETE: the session's end is announced, and awaited, before its 200.
      onsessionclosed: () => this.sessions.announceEnd(session),
    });
    const response = await this.serve(session, req, options, era);
    if (session.transport.sessionId === undefined) {
      await closeInstance(session);
    } else {
      // Keep the server's own close handler (set by connect) and forget the session after it.
      const serverOnClose = session.transport.onclose;
      session.transport.onclose = () => {
        serverOnClose?.();
        this.sessions.closed(session);
      };
    }
    return response;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.modern.closeAll(), this.sessions.closeAll()]);
  }

  private async handleStateless(req: HttpRequestLike, options: HttpHandleOptions, era: RequestEra): Promise<Response> {
    return this.serveOnce(await this.open({ sessionIdGenerator: undefined }), req, options, era);
  }

  /** One request on an instance of its own; a reply stream counts as work while it lasts, so the idle release waits for it. */
  private serveOnce<I extends ServedInstance>(instance: I, req: HttpRequestLike, options: HttpHandleOptions, era: RequestEra, keep?: (instance: I) => boolean): Promise<Response> {
    return serveOnce(instance, req, options, era, {
      keep,
      streamOpened: () => this.memory?.begin(),
      streamEnded: () => this.memory?.end(),
    });
  }

  /** Handles one request of a session, counting it as in flight so the session cannot expire under it. */
  private async serve(session: Session, req: HttpRequestLike, options: HttpHandleOptions, era: RequestEra): Promise<Response> {
    session.inFlight++;
    try {
      return await session.transport.serveRouted(req, options, era);
    } finally {
      session.inFlight--;
      session.lastActive = performance.now();
    }
  }

  /** A new server and a session transport, connected (a session's, or one stateless request's). */
  private async open(extra: Partial<HttpMsgpackServerOptions>): Promise<Session> {
    const server = await this.options.createServer();
    const transport = new WebHttpMsgpackServerTransport({ ...this.transportOptions, ...extra });
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
}
