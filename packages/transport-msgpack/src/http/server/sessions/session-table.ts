import { IdleSessionSweeper, type ExpirableSession } from './session-expiry.js';
import { closeInstance, type ServedInstance } from '../exchange/served-instance.js';
import type { SessionTransport } from './session-transport.js';

/** One open session: its transport, its server, and what expiry watches. */
export interface Session extends ExpirableSession, ServedInstance<SessionTransport> {
  /** The initialization deadline, cleared when the session ends so that it holds nothing after. */
  initDeadline?: ReturnType<typeof setTimeout>;
  /** Its end announced (onsessionclosed called, or being called): once per session. */
  endAnnounced?: Promise<void>;
}

export interface SessionTableOptions {
  /** Idle sessions close after this long; undefined: never. */
  idleTimeoutMs: number | undefined;
  /** A session whose client has not sent `notifications/initialized` this long after initialize closes (0 or Infinity: never). */
  initTimeoutMs: number;
  maxSessions: number;
  /** The application's hook, called once per session that was added, when it ends (McpHttpHandlerOptions). */
  onsessionclosed?: ((sessionId: string, server: Session['server']) => void | Promise<void>) | undefined;
  /** A session ended, however it did (the handler's idle memory release counts from then). */
  ended(session: Session): void;
}

/**
 * The open sessions of an endpoint, by id, and the ways one ends, each its own verb: the client or the
 * server closed it (`closed`), it sat idle or was never initialized (`expire`), the endpoint closes
 * (`closeAll`).
 */
export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: IdleSessionSweeper<Session> | undefined;
  /** Sessions being opened: counted against maxSessions with the open ones. */
  private opening = 0;
  private closing = false;

  constructor(private readonly options: SessionTableOptions) {
    if (options.idleTimeoutMs !== undefined) this.sweeper = new IdleSessionSweeper(options.idleTimeoutMs, this.sessions, (session) => this.expire(session));
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /** Streams open across sessions, for leak checks and the idle release. */
  get openStreamCount(): number {
    let count = 0;
    for (const session of this.sessions.values()) count += session.transport.openStreamCount;
    return count;
  }

  /**
   * Whether no session may open now. Sessions still being opened count too: an initialize whose body comes
   * slowly is not one yet, and would otherwise pass the check however many others are open by the time it is.
   */
  get full(): boolean {
    return this.sessions.size + this.opening >= this.options.maxSessions;
  }

  /**
   * Runs the opening of a session, counted against maxSessions until `added` says the session is in the
   * table (from then on it counts as a session), or the opening ends. A held initialize reply (SPEC.md
   * 9.6.2) ends after the session was added, so it must not count twice meanwhile.
   */
  async opened<T>(open: (added: () => void) => Promise<T>): Promise<T> {
    this.opening++;
    let counted = true;
    const added = () => {
      if (counted) this.opening--;
      counted = false;
    };
    try {
      return await open(added);
    } finally {
      added();
    }
  }

  /** A session whose initialize was admitted: found by its id from now on, closed if never initialized. */
  add(id: string, session: Session): void {
    this.sessions.set(id, session);
    this.sweeper?.ensureRunning();
    const ms = this.options.initTimeoutMs;
    if (ms === 0 || ms === Infinity) return;
    session.initDeadline = setTimeout(() => {
      session.initDeadline = undefined;
      if (!session.transport.clientInitialized && !this.closing) this.expire(session);
    }, ms);
    // A pending deadline must never keep the process alive.
    session.initDeadline.unref?.();
  }

  /** Its transport closed (the client's DELETE, or the server closed it): the server follows. */
  closed(session: Session): void {
    this.leave(session);
    void session.server.close().catch(() => {});
  }

  /** Idle too long, or never initialized: closed as DELETE would; its id answers 404 at once. */
  expire(session: Session): void {
    this.leave(session);
    void closeInstance(session);
  }

  /** The endpoint closes: every session with it, and their onsessionclosed. */
  async closeAll(): Promise<void> {
    this.closing = true;
    this.sweeper?.stop();
    const all = [...this.sessions.values()];
    for (const session of all) this.leave(session);
    // close() resolves once every session's cleanup (onsessionclosed) has run, failed ones included.
    await Promise.all(all.map((session) => Promise.all([closeInstance(session), this.announceEnd(session).catch(() => {})])));
  }

  /**
   * Calls onsessionclosed for a session that was added, once whichever way it ends; the promise settles
   * when the hook has (DELETE awaits it: a failure there answers the DELETE 500).
   */
  announceEnd(session: Session): Promise<void> {
    const id = session.transport.sessionId;
    const hook = this.options.onsessionclosed;
    if (session.endAnnounced === undefined && id !== undefined && hook) session.endAnnounced = Promise.resolve().then(() => hook(id, session.server));
    return session.endAnnounced ?? Promise.resolve();
  }

  private leave(session: Session): void {
    clearTimeout(session.initDeadline);
    session.initDeadline = undefined;
    const id = session.transport.sessionId;
    if (id !== undefined && this.sessions.get(id) === session) this.sessions.delete(id);
    this.announceEnd(session).catch(() => {});
    this.options.ended(session);
  }
}
