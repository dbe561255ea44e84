import { carryBytes, inMemoryBody } from '../exchange/response-bytes.js';
import type { Transport } from '../../../mcp/types.js';
import { WebHttpMsgpackServerTransport } from '../transport/server-transport.js';
import type { HttpHandleOptions, HttpMsgpackServerOptions, HttpRequestLike } from '../exchange/server-options.js';
import { SESSION_GONE, refusalResponse, serverFailure, type Refusal } from '../exchange/responses.js';
import { checkHostAndOrigin } from '../exchange/host-check.js';
import { canFollow } from '../streams/shared-event-store.js';
import { IdleSessionSweeper, resolveIdleTimeout, type ExpirableSession } from './session-expiry.js';
import { bindModern, listenContextOf, seedClientIdentity, modernRevisionsOf } from '../revision-2026-07-28/modern-binding.js';
import { watchExchange, withLadderStatus } from '../revision-2026-07-28/modern-status.js';
import { ListenSubscriptions, type ListenNotifier } from '../streams/listen-subscriptions.js';
import { IdleServers } from './idle-servers.js';
import { IdleMemoryRelease, type IdleReleaseOptions } from './idle-memory.js';
import { dropPooledTextBuffers } from '../../../buffers/pooled-text.js';

const MAX_IDLE_SERVERS = 16;
import { SUPPORTED_MODERN_PROTOCOL_VERSIONS } from '../../../jsonrpc/envelope.js';
import { requestEra, type RequestEra } from '../revision-2026-07-28/request-era.js';
import type { ModernEndpoint } from '../revision-2026-07-28/modern-endpoint.js';
import { TRANSPORT_ERROR } from '../../../jsonrpc/error-codes.js';
import { DEFAULT_MAX_REQUEST_BODY_BYTES, resolveReceiveLimits } from '../../../wire/receive-limits.js';

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

interface Session extends ExpirableSession {
  transport: WebHttpMsgpackServerTransport;
  server: ConnectableServer;
  /** The initialization deadline, cleared when the session ends so that it holds nothing after. */
  initDeadline?: ReturnType<typeof setTimeout>;
}

/**
 * Serves MCP at one endpoint for many clients: routes requests to per-session transports by
 * Mcp-Session-Id (or makes one per request when stateless). Web-standard: `handle` takes a Request (any
 * fetch handler) and returns a Response; McpHttpHandler adds the node:http and Bun.serve entries.
 */
export class WebMcpHttpHandler {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: IdleSessionSweeper<Session> | undefined;
  private readonly listeners = new ListenSubscriptions();
  private readonly idleServers = new IdleServers<Session>(MAX_IDLE_SERVERS);
  private readonly memory: IdleMemoryRelease | undefined;
  /** Sessions being opened: counted against maxSessions with the open ones. */
  private opening = 0;
  private closed = false;

  constructor(private readonly options: McpHttpHandlerOptions) {
    // Checked now rather than when the first session's transport is made.
    resolveReceiveLimits(options, DEFAULT_MAX_REQUEST_BODY_BYTES);
    const idleTimeoutMs = resolveIdleTimeout(options.sessionIdleTimeoutMs);
    if (idleTimeoutMs !== undefined && !options.stateless) {
      this.sweeper = new IdleSessionSweeper(idleTimeoutMs, this.sessions, (session) => this.expire(session));
    }
    if (options.idleRelease !== false) {
      this.memory = new IdleMemoryRelease(
        options.idleRelease ?? {},
        () => this.openStreamCount > 0 || this.listeners.count > 0,
        () => this.releaseIdleMemory(),
      );
    }
  }

  /** @internal Idle releases done so far (idleRelease). */
  get idleReleaseCount(): number {
    return this.memory?.releases ?? 0;
  }

  /** @internal 2026-07-28 servers kept for reuse right now. */
  get idleServerCount(): number {
    return this.idleServers.size;
  }

  /** What is kept only to be reused: the next request makes it again. */
  private releaseIdleMemory(): void {
    if (this.closed) return;
    for (const session of this.idleServers.drain()) void this.shut(session);
    dropPooledTextBuffers();
  }

  /**
   * Change notifications for the 2026-07-28 `subscriptions/listen` streams open at this endpoint (each gets
   * the ones its filter asked for and the served server's capabilities allow). 2025-11-25 sessions hear
   * changes from their own server instance, as before.
   */
  get notify(): ListenNotifier {
    return this.listeners.notify;
  }

  /** @internal Open subscriptions/listen streams. */
  get listenCount(): number {
    return this.listeners.count;
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

  /**
   * Answers one HTTP request. Whatever fails inside on the server's side (createServer throws, a server's
   * connect fails) is answered 500 with a JSON-RPC internal error (-32603) whose data names the reason, in
   * the wire the client accepts: never a runtime's bare 500 page, and never the client's parse error.
   */
  async handle(req: HttpRequestLike, options: HttpHandleOptions = {}): Promise<Response> {
    this.memory?.begin();
    try {
      return await this.route(req, options);
    } catch (error) {
      return refusalResponse(req, serverFailure(error));
    } finally {
      this.memory?.end();
    }
  }

  private async route(req: HttpRequestLike, options: HttpHandleOptions): Promise<Response> {
    // DNS-rebinding protection, once per request and before anything else: a refused request makes no
    // server instance. The handler's transports are made without the check (open()), since it ran here.
    const refused = checkHostAndOrigin(this.options, req.headers.get('host'), req.headers.get('origin'), options.localAddress);
    if (refused) return refusalResponse(req, { status: 403, code: TRANSPORT_ERROR, message: refused });
    // Read once: it picks the route here, and the transport checks the body against it.
    const era = requestEra(req.headers);
    if (req.method === 'POST' && era.modern !== undefined) return this.handleModern(req, options, era, era.modern);
    if (this.options.stateless) return this.handleStateless(req, options, era);
    const sessionId = req.headers.get('mcp-session-id');
    if (sessionId) {
      const session = this.sessions.get(sessionId);
      if (session) return this.serve(session, req, options, era);
      // A resume of a session that lives, or lived, on another instance: its streams are in a shared store.
      if (req.method === 'GET' && req.headers.get('last-event-id') && canFollow(this.options.eventStore)) return this.handleStateless(req, options, era);
      return refusalResponse(req, SESSION_GONE);
    }
    // Sessions still being opened count too: an initialize whose body comes slowly is not one yet, and
    // would otherwise pass the check however many others are open by the time it is.
    if (this.sessions.size + this.opening >= (this.options.maxSessions ?? DEFAULT_MAX_SESSIONS)) {
      return refusalResponse(req, SESSION_CAP_REACHED);
    }
    this.opening++;
    try {
      return await this.openSession(req, options, era);
    } finally {
      this.opening--;
    }
  }

  /** A request without a session id (an initialize, or refused by the new session's transport). */
  private async openSession(req: HttpRequestLike, options: HttpHandleOptions, era: RequestEra): Promise<Response> {
    const session = await this.open({
      // A 2026-07-28 body without its headers lands here (the headers route those): it gets -32020.
      modernRevisions: SUPPORTED_MODERN_PROTOCOL_VERSIONS,
      sessionIdGenerator: this.options.sessionIdGenerator ?? (() => crypto.randomUUID()),
      onsessioninitialized: (id) => {
        this.sessions.set(id, session);
        this.sweeper?.ensureRunning();
        this.expireUnlessInitialized(session);
      },
    });
    const response = await this.serve(session, req, options, era);
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

  async close(): Promise<void> {
    this.closed = true;
    this.sweeper?.stop();
    this.listeners.closeAll();
    const idle = this.idleServers.drain();
    const all = [...this.sessions.values(), ...idle];
    this.sessions.clear();
    await Promise.all(all.map((session) => this.shut(session)));
  }

  /**
   * A 2026-07-28 request: no session, a fresh server bound to the revision (SDK v2 servers) for this one
   * exchange, on either wire. The transport checks the body against the headers (-32020 on a mismatch);
   * a server that cannot serve the revision gets its requests answered with -32022.
   */
  private async handleModern(req: HttpRequestLike, options: HttpHandleOptions, era: RequestEra, revision: string): Promise<Response> {
    const reuse = this.options.reuseServers !== false;
    let bound = false;
    const reused = reuse ? this.idleServers.take(revision) : undefined;
    const session =
      reused ??
      (await this.open({ sessionIdGenerator: undefined }, (server) => {
        // All it can serve, not just this one: a -32022 answer lists them.
        const revisions = modernRevisionsOf(server);
        bound = revisions.includes(revision) && bindModern(server, revision);
        return { options: { modernRevisions: revisions }, endpoint: this.modernEndpoint(server, reuse) };
      }));
    // Given back only when nothing of this request is still running on it (a client that went away
    // mid-call leaves its handler running: that instance is closed instead, so no answer can cross over).
    const keep = (kept: Session) => reuse && !this.closed && kept.transport.pendingRequestCount === 0 && this.idleServers.give(revision, kept);
    const watch = watchExchange(session.transport);
    return withLadderStatus(req, await this.serveOnce(session, req, options, era, reused !== undefined || bound ? keep : undefined), watch);
  }

  /** What this endpoint does for the transport of a 2026-07-28 server (see ModernEndpoint). */
  private modernEndpoint(server: ConnectableServer, sequential: boolean): ModernEndpoint {
    return {
      sequential,
      beforeServing: (message) => seedClientIdentity(server, 'params' in message ? message.params : undefined),
      listen: (request, format, signal) => this.listeners.listen(request, format, listenContextOf(server), signal),
    };
  }

  private async handleStateless(req: HttpRequestLike, options: HttpHandleOptions, era: RequestEra): Promise<Response> {
    return this.serveOnce(await this.open({ sessionIdGenerator: undefined }), req, options, era);
  }

  /** One request on a session of its own, shut once its reply has been read; `keep` may take the server back. */
  private async serveOnce(session: Session, req: HttpRequestLike, options: HttpHandleOptions, era: RequestEra, keep?: (session: Session) => boolean): Promise<Response> {
    let response: Response;
    try {
      response = await session.transport.handleRequest(req, options, era);
    } catch (error) {
      await this.shut(session);
      throw error;
    }
    const done = () => {
      if (!keep?.(session)) void this.shut(session);
    };
    // A reply in memory is complete as it is made: nothing of it runs on the server any more, and what is
    // encoded stays where it is (the encoder never writes over bytes it handed out). A stream lives as long
    // as its reader: until it ends or the client goes away.
    if (inMemoryBody(response) === undefined) {
      // A stream of no session: counted as work while it lasts, so the idle release waits for it.
      this.memory?.begin();
      return afterBody(response, () => {
        this.memory?.end();
        done();
      });
    }
    done();
    return response;
  }

  /** Handles one request of a session, counting it as in flight so the session cannot expire under it. */
  private async serve(session: Session, req: HttpRequestLike, options: HttpHandleOptions, era: RequestEra): Promise<Response> {
    session.inFlight++;
    try {
      return await session.transport.handleRequest(req, options, era);
    } finally {
      session.inFlight--;
      session.lastActive = performance.now();
    }
  }

  /**
   * A new server and transport, connected; `prepare` adjusts the server before, and gives the transport's
   * options and the endpoint it serves 2026-07-28 requests for.
   */
  private async open(extra: Partial<HttpMsgpackServerOptions>, prepare?: (server: ConnectableServer) => { options: Partial<HttpMsgpackServerOptions>; endpoint: ModernEndpoint }): Promise<Session> {
    const {
      createServer: make,
      stateless: _stateless,
      sessionIdleTimeoutMs: _idle,
      reuseServers: _reuse,
      maxSessions: _max,
      sessionInitTimeoutMs: _init,
      idleRelease: _release,
      ...transportOptions
    } = this.options;
    const server = await make();
    // Host and Origin were checked by handle(), for every request, before any transport sees it.
    const checked = { enableDnsRebindingProtection: false };
    const prepared = prepare?.(server);
    const options = { ...transportOptions, ...extra, ...prepared?.options, ...checked };
    const transport = prepared ? new WebHttpMsgpackServerTransport(options, prepared.endpoint) : new WebHttpMsgpackServerTransport(options);
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

  /** Closes the session if its client has not finished initialization by the deadline. */
  private expireUnlessInitialized(session: Session): void {
    const ms = this.options.sessionInitTimeoutMs ?? DEFAULT_SESSION_INIT_TIMEOUT_MS;
    if (ms === 0 || ms === Infinity) return;
    session.initDeadline = setTimeout(() => {
      session.initDeadline = undefined;
      if (!session.transport.clientInitialized && !this.closed) this.expire(session);
    }, ms);
    // A pending deadline must never keep the process alive.
    session.initDeadline.unref?.();
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
    clearTimeout(session.initDeadline);
    session.initDeadline = undefined;
    const id = session.transport.sessionId;
    if (id !== undefined && this.sessions.get(id) === session) this.sessions.delete(id);
    this.memory?.touch();
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
  const tracked = new ReadableStream<Uint8Array>(
    {
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
    },
    { highWaterMark: 0 },
  ); // read only when asked: a body the node adapter writes itself is never pulled
  return carryBytes(response, new Response(tracked, { status: response.status, headers: response.headers }));
}
