import type { StandaloneOutbox } from './outbox.js';

/**
 * What the guarded endpoint (guarded-handler.ts) needs of a session it serves: whose it is, what of its
 * client's messages still waits to be written to the child, and where the child's notifications go.
 */
export interface ServedSession {
  /** The token's principal the session was opened with (undefined when the bridge asks for no token). */
  readonly principal: string | undefined;
  readonly toChild: PendingSends;
  readonly outbox: StandaloneOutbox;
}

/** Sessions by Mcp-Session-Id; a session adds itself when its initialize arrives and leaves when it ends. */
export class SessionRegistry {
  private readonly sessions = new Map<string, ServedSession>();

  add(id: string | undefined, session: ServedSession): void {
    if (id !== undefined) this.sessions.set(id, session);
  }

  remove(session: ServedSession): void {
    for (const [id, found] of this.sessions) if (found === session) this.sessions.delete(id);
  }

  get(id: string): ServedSession | undefined {
    return this.sessions.get(id);
  }
}

/** Bytes of POSTs the bridge holds for children that have not read them yet, over every session. */
export class QueueBudget {
  used = 0;

  constructor(readonly max: number) {}

  fits(bytes: number): boolean {
    return this.used + bytes <= this.max;
  }
}

/**
 * A session's messages on their way to the child: the bytes of the POSTs being handed on (reserved before
 * the body is read, against the session's queue and the bridge's total) and the writes not done yet. The
 * transport writes a message only when the child's stdin has room, so with a child that stops reading, the
 * messages wait here: this is what bounds them. A reservation is given back once its writes are done, or
 * when the session ends, whichever comes first.
 */
export class PendingSends {
  /** Bytes of POSTs accepted and not yet written to the child. */
  bytes = 0;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly reserved = new Set<() => void>();

  track(send: Promise<unknown>): void {
    this.pending.add(send);
    const done = () => this.pending.delete(send);
    send.then(done, done);
  }

  /** Counts `bytes` against this session and `total`; the function returned gives them back (once). */
  reserve(bytes: number, total: QueueBudget): () => void {
    this.bytes += bytes;
    total.used += bytes;
    const release = () => {
      if (!this.reserved.delete(release)) return;
      this.bytes -= bytes;
      total.used -= bytes;
    };
    this.reserved.add(release);
    return release;
  }

  /** The session ended: whatever it still had reserved is given back, written or not. */
  end(): void {
    for (const release of [...this.reserved]) release();
  }

  /** Resolves when every write started so far has finished (or failed). */
  settled(): Promise<void> {
    return Promise.allSettled([...this.pending]).then(() => undefined);
  }
}

/** The principal of a message's request, as the guarded endpoint put it in authInfo. */
export function principalOf(extra: unknown): string | undefined {
  return (extra as { authInfo?: { clientId?: string } } | undefined)?.authInfo?.clientId;
}
