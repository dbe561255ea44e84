import { RelayHost } from '../metrics/relay-process.js';
import { startSession, type Session } from './session.js';
import type { VariantSpec } from './variant.js';

/** Two variants with the same key run the same server program with the same transports and clients. */
export function sessionKey(spec: VariantSpec): string {
  return [
    spec.transport,
    spec.server,
    spec.stack,
    spec.wire,
    spec.gzip ? 'gzip' : '',
    spec.compression ?? '',
    spec.encoding ?? '',
    spec.nativeBytes ? 'native' : '',
    spec.revision ?? '',
    spec.defaults ? 'defaults' : '',
    spec.client ?? '',
    spec.clients,
    spec.build ?? '',
  ].join('|');
}

/**
 * Keeps server processes (and their connected clients) alive from one scenario to the next when the next
 * one needs the same variant: starting a server costs more than many calls, and quick mode has 2 minutes.
 */
export class SessionPool {
  private readonly sessions = new Map<string, Session>();
  /** The run's byte-counting relay process, started with the first HTTP session. */
  private relays: Promise<RelayHost> | undefined;

  constructor(
    private readonly runtime: string,
    private readonly mediaDir: string | undefined,
  ) {}

  /** Whether a previous scenario left this variant's session running (its server and clients are warm). */
  has(spec: VariantSpec): boolean {
    return this.sessions.has(sessionKey(spec));
  }

  /** The session of `spec`, started or kept; `scenario` is the one using it now (named if its server dies). */
  async get(spec: VariantSpec, scenario?: string): Promise<Session> {
    const key = sessionKey(spec);
    const existing = this.sessions.get(key);
    const session = existing ? { ...existing, spec } : await startSession(spec, this.runtime, this.mediaDir, () => this.relayHost(), scenario);
    if (!existing) this.sessions.set(key, session);
    session.server.scenario = scenario;
    session.server.variant = spec.label;
    return session;
  }

  /** Closes a session that failed, so the next scenario gets a fresh server. */
  async drop(spec: VariantSpec): Promise<void> {
    const key = sessionKey(spec);
    const session = this.sessions.get(key);
    this.sessions.delete(key);
    await session?.close().catch(() => {});
  }

  /** Closes every session the coming scenario does not use. */
  async keepOnly(specs: readonly VariantSpec[]): Promise<void> {
    const keep = new Set(specs.map(sessionKey));
    const closing = [...this.sessions].filter(([key]) => !keep.has(key));
    for (const [key] of closing) this.sessions.delete(key);
    await Promise.all(closing.map(([, session]) => session.close().catch(() => {})));
  }

  async closeAll(): Promise<void> {
    await this.keepOnly([]);
    const relays = this.relays;
    this.relays = undefined;
    await relays?.then((host) => host.close()).catch(() => {});
  }

  private relayHost(): Promise<RelayHost> {
    this.relays ??= RelayHost.start(this.runtime).then(({ host }) => host);
    // A relay process that failed to start is tried again by the next session.
    this.relays.catch(() => (this.relays = undefined));
    return this.relays;
  }
}
