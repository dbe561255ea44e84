import { JsonLineLimitError, StreamableHTTPError, type JSONRPCMessage, type Transport } from 'mcp-msgpack-transport';
import { withoutNativeBytes } from '../native-offer.js';
import { errorAnswer, isNotification, isRequest, isResponse, type RequestId } from '../jsonrpc.js';
import { oneLine, type Log } from '../log.js';
import type { LoopbackOAuthProvider } from './oauth.js';
import { RemoteSession, type RemoteOptions } from './remote-session.js';

export interface RelayOptions extends RemoteOptions {
  /** Longest wait for the answer to one host request before the host gets an error for it. */
  requestTimeoutMs: number;
  log: Log;
  /** --oauth: the provider (also given to the transport as authProvider), whose callback brings the code. */
  oauth?: LoopbackOAuthProvider;
  /** Called when the bridge must end: 0 when the host went away, 1 when the server cannot be used at all. */
  exit: (code: number) => void;
}

interface Pending {
  request: JSONRPCMessage & { id: RequestId; method: string };
  timer: ReturnType<typeof setTimeout>;
  /** Already sent again once after a session expiry: a second expiry is answered with an error. */
  retried: boolean;
  /** Already sent again once after the user authorized in the browser. */
  authorized?: boolean;
}

/**
 * Host to remote, at the message level: what the host writes on stdio goes to the server unchanged (no SDK
 * Client in the middle, so no method the bridge does not know is lost), and what the server sends comes back
 * as the JSON a JSON server would have sent. The remote leg is a RemoteSession (MessagePack with native
 * bytes, or JSON for a JSON-only server), replaced by a fresh one when the server expires the session.
 *
 * Every host request ends in an answer: the server's, or a JSON-RPC error from the bridge when the request
 * cannot be sent, its reply stream ends without an answer, or `requestTimeoutMs` passes.
 */
export class HostToRemote {
  private remote: RemoteSession;
  private readonly pending = new Map<RequestId, Pending>();
  /** The host's initialize params, replayed to open a new session after an expiry. */
  private initializeParams: unknown;
  private initializeId: RequestId | undefined;
  /** Whether the server has answered anything yet: before that, a refusal or no server at all ends the bridge. */
  private reached = false;
  private recovering: Promise<void> | undefined;
  /** The browser authorization under way (one for every request that ran into it). */
  private authorizing: Promise<void> | undefined;
  private closing = false;
  /** Waiting in answered(). */
  private readonly whenAnswered: Array<() => void> = [];
  /**
   * The forward of the host's `notifications/initialized`, while it is in flight. The host sends its next
   * request right after it, and each forward is its own POST: without waiting, the request can reach the
   * server first, and a server may refuse requests of a session not yet initialized.
   */
  private initializedInFlight: Promise<void> | undefined;

  constructor(
    private readonly host: Transport,
    private readonly options: RelayOptions,
  ) {
    this.remote = this.connectRemote();
  }

  async start(): Promise<void> {
    this.host.onmessage = (message) => void this.fromHost(message);
    this.host.onclose = () => void this.close(0);
    this.host.onerror = (error) => this.options.log(error instanceof JsonLineLimitError ? `an answer to the host was replaced: ${oneLine(error)}` : `bad message from the host: ${oneLine(error)}`);
    await this.remote.start();
    await this.host.start();
  }

  async close(code: number): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    for (const entry of this.pending.values()) clearTimeout(entry.timer);
    this.pending.clear();
    for (const resolve of this.whenAnswered.splice(0)) resolve();
    await this.remote.close();
    await this.host.close().catch(() => {});
    this.options.exit(code);
  }

  private connectRemote(): RemoteSession {
    const session = new RemoteSession(this.options);
    session.onmessage = (message) => this.fromRemote(message);
    session.onerror = (error) => this.remoteFailed(session, error);
    return session;
  }

  private async fromHost(message: JSONRPCMessage): Promise<void> {
    if (isRequest(message)) {
      if (message.method === 'initialize') {
        this.initializeParams = message.params;
        this.initializeId = message.id;
      }
      const timer = setTimeout(() => this.answerWithError(message.id, `no answer from the server within ${this.options.requestTimeoutMs} ms (--request-timeout)`), this.options.requestTimeoutMs);
      timer.unref?.();
      this.pending.set(message.id, { request: message, timer, retried: false });
    } else if (isNotification(message) && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (id !== undefined) this.settle(id);
    }
    // Held (in the order they came) until the server has the notification; the timer above already runs.
    if (this.initializedInFlight) await this.initializedInFlight.catch(() => {});
    if (isNotification(message) && message.method === 'notifications/initialized') {
      const forwarding = this.forwardInitialized(message);
      this.initializedInFlight = forwarding;
      await forwarding.finally(() => {
        if (this.initializedInFlight === forwarding) this.initializedInFlight = undefined;
      });
      return;
    }
    await this.forward(message);
  }

  /**
   * The host's `notifications/initialized`, which holds every later host message until the server has it:
   * each attempt gets a deadline, a failed one is tried again a bounded number of times, and then the held
   * messages go on anyway (one stderr line), so one stalled POST cannot stall the host for good.
   */
  private async forwardInitialized(message: JSONRPCMessage): Promise<void> {
    const { attempts, attemptMs } = initializedRetry(this.options.requestTimeoutMs);
    let lastError: unknown;
    for (let attempt = 1; attempt <= attempts && !this.closing; attempt++) {
      if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, 250 * (attempt - 1)));
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(new Error(`no 202 within ${attemptMs} ms`)), attemptMs);
      try {
        if (this.recovering) await this.recovering.catch(() => {});
        await this.remote.send(message, { requestSignal: deadline.signal });
        return;
      } catch (error) {
        lastError = deadline.signal.aborted ? deadline.signal.reason : error;
        // An expired session: the recovery sends its own notifications/initialized on the new one.
        if (isSessionGone(error) && this.remote.hadSession) return void (await this.recover(this.remote).catch(() => {}));
      } finally {
        clearTimeout(timer);
      }
    }
    if (!this.closing) {
      this.options.log(`the server did not take notifications/initialized after ${attempts} attempts (${oneLine(lastError)}); sending the host's next messages anyway`);
    }
  }

  /** Sends one host message on the current remote session, after any recovery under way. */
  private async forward(message: JSONRPCMessage, resent = false): Promise<void> {
    if (this.recovering) await this.recovering.catch(() => {});
    if (this.closing) return;
    const remote = this.remote;
    const id = isRequest(message) ? message.id : undefined;
    try {
      await remote.send(message, {
        // A reply stream that ended (after the transport's own reconnection attempts) without the answer.
        onRequestStreamEnd: id === undefined ? undefined : () => setImmediate(() => this.answerWithError(id, 'the server ended its reply stream without an answer', remote)),
      });
    } catch (error) {
      await this.sendFailed(message, error, remote, resent);
    }
  }

  private async sendFailed(message: JSONRPCMessage, error: unknown, remote: RemoteSession, resent: boolean): Promise<void> {
    if (this.closing) return;
    if (isSessionGone(error) && remote.hadSession) {
      const entry = isRequest(message) ? this.pending.get(message.id) : undefined;
      await this.recover(remote).catch(() => {});
      if (this.remote !== remote && isRequest(message) && entry && !entry.retried) {
        // The server answered 404 before reading the request, so it never ran: sending it once more runs it once.
        entry.retried = true;
        await this.forward(message);
        return;
      }
      if (this.remote !== remote && belongsToNewSession(message) && !resent) {
        // The same for a host notification (a 404 means the server never took it), once.
        await this.forward(message, true);
        return;
      }
    }
    if (isAuthorizationNeeded(error) && this.options.oauth && isRequest(message)) {
      const entry = this.pending.get(message.id);
      if (entry && !entry.authorized) {
        entry.authorized = true;
        try {
          await this.authorize(remote, this.options.oauth);
          await this.forward(message);
          return;
        } catch (failure) {
          error = failure;
        }
      }
    }
    if (isRequest(message) && this.initializeParams === undefined && isRefusedBeforeInitialize(error, message)) {
      // The server is there and said why; the host skipped the handshake, so say that rather than repeat the server.
      const text = `the host sent ${message.method} before initialize, and the server refused it (${oneLine(error)}): a 2025-era MCP session starts with an initialize request`;
      this.answerWithError(message.id, text);
      this.options.log(text);
      return;
    }
    if (!this.reached && isRequest(message)) {
      // Nothing ever worked: a wrong URL, a refused token or no server. Say so once and stop.
      this.answerWithError(message.id, `cannot use ${this.options.url.href}: ${oneLine(error)}`);
      this.options.log(`cannot use ${this.options.url.href}: ${oneLine(error)}`);
      await this.close(1);
      return;
    }
    if (isRequest(message)) this.answerWithError(message.id, `the server could not be reached: ${oneLine(error)}`);
    else this.options.log(`could not forward ${isNotification(message) ? message.method : 'a response'}: ${oneLine(error)}`);
  }

  private authorize(remote: RemoteSession, oauth: LoopbackOAuthProvider): Promise<void> {
    this.authorizing ??= oauth
      .waitForCallback()
      .then((callback) => remote.finishAuth(callback))
      .finally(() => (this.authorizing = undefined));
    return this.authorizing;
  }

  private fromRemote(message: JSONRPCMessage): void {
    if (isResponse(message)) {
      this.reached = true;
      // An error without an id (the remote could not read some message) answers nothing the host awaits.
      const entry = message.id === undefined ? undefined : this.settle(message.id);
      // Not (or no longer) awaited: answered after a timeout or a cancellation, or a duplicate.
      if (!entry) return;
      const result = (message as { result?: { protocolVersion?: unknown } }).result;
      if (message.id === this.initializeId && entry.request.method === 'initialize' && typeof result?.protocolVersion === 'string') {
        this.remote.setProtocolVersion(result.protocolVersion);
      }
      message = withoutOurCapability(message);
    }
    void this.host.send(message).catch((error: unknown) => this.options.log(`could not write to the host: ${oneLine(error)}`));
  }

  private remoteFailed(remote: RemoteSession, error: Error): void {
    if (this.closing || remote !== this.remote) return;
    // The standalone GET stream of an expired session: open a new session before the host asks anything.
    if (isSessionGone(error) && remote.hadSession) void this.recover(remote).catch(() => {});
  }

  /**
   * Replaces an expired session: initialize again with the host's own params, then notifications/initialized,
   * with backoff while the server is away. One recovery at a time; host messages wait for it.
   */
  private recover(expired: RemoteSession): Promise<void> {
    if (this.remote !== expired) return this.recovering ?? Promise.resolve();
    if (!this.recovering) {
      this.options.log(`the server ended session ${expired.sessionId ?? ''}; opening a new one with the host's initialize`);
      this.recovering = this.reopen(expired).finally(() => (this.recovering = undefined));
    }
    return this.recovering;
  }

  private async reopen(expired: RemoteSession): Promise<void> {
    const delays = [0, 250, 500, 1000, 2000, 4000];
    let lastError: unknown;
    for (const delay of delays) {
      if (this.closing) return;
      if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
      const fresh = this.connectRemote();
      try {
        await fresh.start();
        if (this.initializeParams !== undefined) await fresh.initialize(this.initializeParams, this.options.requestTimeoutMs);
        this.remote = fresh;
        void expired.close();
        return;
      } catch (error) {
        lastError = error;
        await fresh.close();
      }
    }
    this.options.log(`could not open a new session: ${oneLine(lastError)} (the next request tries again)`);
    // The next request finds the old session still in place, gets 404 again and retries the recovery.
    throw lastError;
  }

  /**
   * Resolves once every host request read so far has its answer (each has its timer, so this is bounded by
   * `requestTimeoutMs`): what the host asked just before closing its input still gets answered.
   */
  answered(): Promise<void> {
    if (this.pending.size === 0 || this.closing) return Promise.resolve();
    return new Promise((resolve) => this.whenAnswered.push(resolve));
  }

  /** Ends the wait for an answer; the entry, if the request was still awaited. */
  private settle(id: RequestId): Pending | undefined {
    const entry = this.pending.get(id);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    this.pending.delete(id);
    if (this.pending.size === 0) for (const resolve of this.whenAnswered.splice(0)) resolve();
    return entry;
  }

  /** Answers a host request with an error, unless it was answered already (or belongs to an older session). */
  private answerWithError(id: RequestId, text: string, onSession?: RemoteSession): void {
    if (onSession && onSession !== this.remote) return;
    if (!this.settle(id)) return;
    void this.host.send(errorAnswer(id, `mcp-msgpack-bridge: ${text}`)).catch(() => {});
  }
}

/**
 * An initialize or server/discover result without the native-bytes capability the bridge negotiated for
 * itself: the host asked for none of it, and a JSON server would not have announced it.
 */
function withoutOurCapability(message: JSONRPCMessage): JSONRPCMessage {
  const result = (message as { result?: { capabilities?: unknown } }).result;
  const capabilities = result?.capabilities;
  if (typeof capabilities !== 'object' || capabilities === null) return message;
  const without = withoutNativeBytes(capabilities as Record<string, unknown>);
  return without === capabilities ? message : ({ ...message, result: { ...result, capabilities: without } } as JSONRPCMessage);
}

/** The SDK's UnauthorizedError: the provider sent the user to the browser, and the request waits for the code. */
function isAuthorizationNeeded(error: unknown): boolean {
  return error instanceof Error && error.name === 'UnauthorizedError';
}

/**
 * The deadline of one attempt at forwarding `notifications/initialized`, and how many attempts: a quarter of
 * the request timeout, at most 5 s, three times, so the held messages go on well within the host's own wait.
 */
function initializedRetry(requestTimeoutMs: number): { attempts: number; attemptMs: number } {
  return { attempts: 3, attemptMs: Math.min(5000, Math.max(100, Math.floor(requestTimeoutMs / 4))) };
}

/**
 * A host notification that means as much on a new session as on the expired one. Not `initialized` (the
 * recovery sends its own), and not a cancellation (its request ran, if at all, on the old session).
 */
function belongsToNewSession(message: JSONRPCMessage): boolean {
  return isNotification(message) && message.method !== 'notifications/initialized' && message.method !== 'notifications/cancelled';
}

/** A 2025-era request (no 2026-07-28 envelope) the server refused with 400 before any initialize. */
function isRefusedBeforeInitialize(error: unknown, message: JSONRPCMessage & { method: string; params?: Record<string, unknown> }): boolean {
  if (message.method === 'initialize' || !(error instanceof StreamableHTTPError) || error.status !== 400) return false;
  const meta = message.params?._meta as Record<string, unknown> | undefined;
  return !Object.keys(meta ?? {}).some((key) => key.endsWith('protocolVersion'));
}

/** 404 on a request that carried a session id: the server no longer knows the session. */
function isSessionGone(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.status === 404;
}
