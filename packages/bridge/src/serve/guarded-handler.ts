import { DEFAULT_MAX_REQUEST_BODY_BYTES, McpHttpHandler, type McpHttpHandlerOptions } from 'mcp-msgpack-transport';
import type { ChildProcesses } from './child-processes.js';
import { watchStandalone } from './outbox.js';
import type { QueueBudget, SessionRegistry } from './served-session.js';
import type { BearerTokens } from './tokens.js';

type HandleArgs = Parameters<McpHttpHandler['handle']>;

export interface Guards {
  tokens: BearerTokens;
  sessions: SessionRegistry;
  /** Origins a browser page may call from (exact `scheme://host[:port]`), beside the loopback ones. */
  allowedOrigins: readonly string[];
  maxQueueBytes: number;
  /** Bytes queued for children over every session, and the most there may be. */
  queued: QueueBudget;
  /** One child per session: a new session is refused at once when no child can be started. */
  children?: ChildProcesses;
}

/** Seconds a client is told to wait (Retry-After) when the bridge refuses for a while. */
const RETRY_AFTER_S = 1;
const SESSION_NOT_FOUND = -32001;
const SERVER_BUSY = -32000;

/**
 * The endpoint with the bridge's own checks in front, each answered before the request reaches a session
 * (so a refused request starts no child and queues nothing): an Origin a browser sent and the operator did
 * not allow (403, whatever --allowed-host says), a missing or wrong bearer token (401), a session opened
 * under another token (404, as for an unknown session), a session whose child has not taken what it was
 * sent (503 + Retry-After), and a new session when every child place is taken (503 + Retry-After).
 */
export class GuardedHandler extends McpHttpHandler {
  constructor(
    options: McpHttpHandlerOptions,
    private readonly guards: Guards,
  ) {
    super(options);
  }

  override async handle(req: HandleArgs[0], options: HandleArgs[1] = {}): Promise<Response> {
    const origin = req.headers.get('origin');
    if (origin !== null && !this.originAllowed(origin)) return refuse(403, SERVER_BUSY, `Forbidden: Origin ${origin} is not allowed (--allowed-origin)`);
    let principal: string | undefined;
    if (this.guards.tokens.required) {
      principal = this.guards.tokens.principal(req.headers.get('authorization'));
      if (principal === undefined) return refuse(401, SERVER_BUSY, 'Unauthorized: a valid bearer token is required', { 'WWW-Authenticate': 'Bearer realm="mcp-msgpack-bridge"' });
      options = { ...options, authInfo: { token: '', clientId: principal, scopes: [] } };
    }
    const sessionId = req.headers.get('mcp-session-id');
    const session = sessionId ? this.guards.sessions.get(sessionId) : undefined;
    // A session answers only whoever opened it: to anyone else it does not exist.
    if (session && session.principal !== principal) return refuse(404, SESSION_NOT_FOUND, 'Session not found');
    if (req.method === 'POST' && !sessionId && this.guards.children && !this.guards.children.hasRoom) {
      return refuse(503, SERVER_BUSY, `Service Unavailable: the bridge runs its maximum of ${this.guards.children.max} stdio servers`, { 'Retry-After': String(RETRY_AFTER_S) }, 'too-many-sessions');
    }
    if (!session) return super.handle(req, options);
    if (req.method === 'GET') return watchStandalone(await super.handle(req, options), session.outbox);
    if (req.method !== 'POST') return super.handle(req, options);

    const length = Number(req.headers.get('content-length') ?? Number.NaN);
    const bytes = Number.isFinite(length) ? length : DEFAULT_MAX_REQUEST_BODY_BYTES;
    const queue = session.toChild;
    if (queue.bytes > 0 && queue.bytes + bytes > this.guards.maxQueueBytes) {
      return busy(`the stdio server has not read the last ${queue.bytes} bytes sent to it`, 'server-not-reading');
    }
    // A session whose child has taken all it was sent is never refused for the others' sake: stalled children
    // elsewhere cannot stop a reading one. So the total can be passed by one POST per session at most.
    const total = this.guards.queued;
    if (queue.bytes > 0 && !total.fits(bytes)) {
      return busy(`the bridge holds ${total.used} bytes its stdio servers have not read yet, its most (--max-total-queue-bytes)`, 'bridge-queue-full');
    }
    const release = queue.reserve(bytes, total);
    let response: Response;
    try {
      response = await super.handle(req, options);
    } catch (error) {
      release();
      throw error;
    }
    // Given back once everything this POST handed to the child has been written to it (or the session ends).
    void queue.settled().then(release);
    return response;
  }

  private originAllowed(origin: string): boolean {
    if (this.guards.allowedOrigins.includes(origin)) return true;
    try {
      const url = new URL(origin);
      return (url.protocol === 'http:' || url.protocol === 'https:') && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) && url.origin === origin;
    } catch {
      return false;
    }
  }
}

/** 503 + Retry-After: nothing was taken, the client may send it again shortly. */
function busy(why: string, reason: string): Response {
  return refuse(503, SERVER_BUSY, `Service Unavailable: ${why}; try again later`, { 'Retry-After': String(RETRY_AFTER_S) }, reason);
}

function refuse(status: number, code: number, message: string, headers: Record<string, string> = {}, reason?: string): Response {
  const body = { jsonrpc: '2.0', id: null, error: { code, message, ...(reason ? { data: { reason } } : {}) } };
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}
