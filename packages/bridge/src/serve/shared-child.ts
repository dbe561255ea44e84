import { randomUUID } from 'node:crypto';
import type { ConnectableServer, JSONRPCMessage, StdioMsgpackClientTransport, Transport } from 'mcp-msgpack-transport';
import { errorAnswer, isNotification, isRequest, isResponse, type RequestId } from '../jsonrpc.js';
import { oneLine } from '../log.js';
import { withoutNativeBytesOffer } from '../native-offer.js';
import { Deadlines, deadlineMessage } from './deadlines.js';
import { StandaloneOutbox } from './outbox.js';
import { PendingSends, principalOf, type ServedSession } from './served-session.js';
import type { ServeContext } from './serve-context.js';
import { startStdioChild } from './stdio-child.js';

type Params = Record<string, unknown> & { _meta?: Record<string, unknown> };

/** A request of one session, as the child knows it (by a number of ours, so two sessions' ids never meet). */
interface Routed {
  session: SharedSession;
  id: RequestId;
  method: string;
  progressToken?: string | number;
  /** The first initialize: its answer is kept for every later session. */
  resolve?: (answer: unknown) => void;
  reject?: (error: Error) => void;
}

/**
 * `--shared`: one stdio child for every HTTP session, for servers that hold state worth sharing or are slow
 * to start. The child is initialized once (by the first session; later sessions get the same answer).
 * Each session has an id space of its own: its request ids and progress tokens are renumbered on the way in
 * and restored on the way out, and a cancel or an answer it sends reaches the child only for a request of
 * its own, so no session can name, cancel or answer another's. Notifications that belong to no request go
 * to every session. The child's own requests (sampling, elicitation, roots) carry nothing on stdio that
 * says which call they serve: one goes to the session with calls open at the child when there is exactly
 * one such session, and is otherwise refused with a JSON-RPC error to the child (never guessed), as is an
 * answer from any session but the one asked. A child that exits ends every session, each open request
 * answered with an error; the next session starts a new one.
 */
export class SharedChild {
  private child: StdioMsgpackClientTransport | undefined;
  private spawned: Promise<void> | undefined;
  private readonly sessions = new Set<SharedSession>();
  private readonly routes = new Map<number, Routed>();
  private readonly deadlines = new Deadlines<number>();
  /** The child's requests to a client: our unguessable id -> the child's id and the session asked. */
  private readonly asked = new Map<string, { id: RequestId; session: SharedSession }>();
  private initializeAnswer: Promise<unknown> | undefined;
  private next = 0;

  constructor(readonly context: ServeContext) {}

  session(): SharedSession {
    return new SharedSession(this);
  }

  add(session: SharedSession): void {
    this.sessions.add(session);
  }

  remove(session: SharedSession): void {
    this.sessions.delete(session);
    for (const [number, routed] of this.routes) {
      if (routed.session !== session || routed.resolve) continue;
      this.routes.delete(number);
      this.deadlines.clear(number);
      // The child need not finish what nobody will read.
      this.cancelAtChild(number, 'the client ended its session');
    }
    for (const [key, asked] of this.asked) if (asked.session === session) this.refuseAsked(key, 'the session asked has ended');
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    this.spawned = undefined;
    this.deadlines.clearAll();
    if (child) {
      child.onclose = undefined;
      await child.close().catch(() => {});
    }
  }

  /** A message from a session's HTTP client, on its way to the child. */
  async fromSession(session: SharedSession, message: JSONRPCMessage): Promise<void> {
    try {
      if (isRequest(message) && message.method === 'initialize') return await this.initialize(session, message);
      if (isNotification(message) && message.method === 'notifications/initialized' && session.initializedByCache) return;
      const renumbered = this.renumbered(session, message);
      if (renumbered) await this.toChild(renumbered);
    } catch (error) {
      if (isRequest(message)) await session.reply(errorAnswer(message.id, `mcp-msgpack-bridge: the shared stdio server could not be reached: ${oneLine(error)}`), message.id);
    }
  }

  /** The first initialize goes to the child; the others get its answer under their own id. */
  private async initialize(session: SharedSession, request: JSONRPCMessage & { id: RequestId; params?: Params }): Promise<void> {
    if (!this.initializeAnswer) {
      this.initializeAnswer = new Promise((resolve, reject) => {
        const number = ++this.next;
        this.routes.set(number, { session, id: request.id, method: 'initialize', resolve, reject });
        const ms = this.context.initTimeoutMs;
        this.deadlines.set(number, ms, () => {
          this.routes.delete(number);
          this.context.log(`the shared stdio server (${this.context.command.command}) did not answer initialize within ${ms} ms; ending it`);
          reject(new Error(deadlineMessage(this.context.command.command, ms, true)));
          void this.endChild();
        });
        this.toChild({ ...request, id: number } as JSONRPCMessage).catch(reject);
      });
      this.initializeAnswer.catch(() => (this.initializeAnswer = undefined));
    } else session.initializedByCache = true;
    let answer: { result?: unknown; error?: unknown };
    try {
      answer = (await this.initializeAnswer) as typeof answer;
    } catch (error) {
      await session.reply(errorAnswer(request.id, (error as Error).message), request.id);
      await session.close();
      return;
    }
    await session.reply({ jsonrpc: '2.0', id: request.id, ...('error' in answer ? { error: answer.error } : { result: answer.result }) } as JSONRPCMessage, request.id);
  }

  /** The message as the child may see it, or undefined for what would reach into another session. */
  private renumbered(session: SharedSession, message: JSONRPCMessage): JSONRPCMessage | undefined {
    if (isRequest(message)) {
      const number = ++this.next;
      const params = message.params as Params | undefined;
      const progressToken = params?._meta?.progressToken as string | number | undefined;
      this.routes.set(number, { session, id: message.id, method: message.method, progressToken });
      this.startDeadline(number);
      const renamedParams = progressToken === undefined ? params : { ...params, _meta: { ...params!._meta, progressToken: number } };
      return { ...message, id: number, ...(renamedParams ? { params: renamedParams } : {}) } as JSONRPCMessage;
    }
    if (isNotification(message) && message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      for (const [number, routed] of this.routes) {
        if (routed.session === session && routed.id === requestId && !routed.resolve) {
          this.routes.delete(number);
          this.deadlines.clear(number);
          return { ...message, params: { ...message.params, requestId: number } } as JSONRPCMessage;
        }
      }
      // Not a request of this session's: the child's ids are ours, and no session names another's.
      return undefined;
    }
    if (isResponse(message)) {
      // An answer to one of the child's requests, from the session it was put to: back under the child's id.
      const asked = this.asked.get(String(message.id));
      if (!asked || asked.session !== session) return undefined;
      this.asked.delete(String(message.id));
      return { ...message, id: asked.id } as JSONRPCMessage;
    }
    return message;
  }

  private startDeadline(number: number): void {
    const ms = this.context.requestTimeoutMs;
    this.deadlines.set(number, ms, () => {
      const routed = this.routes.get(number);
      if (!routed) return;
      this.routes.delete(number);
      void routed.session.reply(errorAnswer(routed.id, deadlineMessage(this.context.command.command, ms, false)), routed.id);
      this.cancelAtChild(number, 'mcp-msgpack-bridge: request timed out');
    });
  }

  private cancelAtChild(number: number, reason: string): void {
    this.child?.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: number, reason } } as JSONRPCMessage).catch(() => {});
  }

  private async toChild(message: JSONRPCMessage): Promise<void> {
    this.spawned ??= this.spawn();
    await this.spawned;
    await this.child!.send(withoutNativeBytesOffer(message));
  }

  private async spawn(): Promise<void> {
    this.child = await startStdioChild(this.context.command, this.context.log, this.context.children, {
      message: (message) => void this.fromChild(message),
      exit: () => void this.childExited(),
    });
  }

  private async fromChild(message: JSONRPCMessage): Promise<void> {
    if (isResponse(message)) {
      const routed = typeof message.id === 'number' ? this.routes.get(message.id) : undefined;
      if (!routed) return;
      this.routes.delete(message.id as number);
      this.deadlines.clear(message.id as number);
      if (routed.resolve) return routed.resolve(message);
      await routed.session.reply({ ...message, id: routed.id } as JSONRPCMessage, routed.id);
      return;
    }
    if (isNotification(message)) {
      const params = message.params as Params | undefined;
      const token = message.method === 'notifications/progress' ? params?.progressToken : undefined;
      const routed = typeof token === 'number' ? this.routes.get(token) : undefined;
      if (routed) {
        await routed.session.reply({ ...message, params: { ...params, progressToken: routed.progressToken } } as JSONRPCMessage, routed.id);
        return;
      }
      for (const session of this.sessions) session.outbox.deliver(message);
      return;
    }
    if (isRequest(message)) await this.askClient(message);
  }

  /** A request of the child: to the one session with calls open, or refused (see the class comment). */
  private async askClient(request: JSONRPCMessage & { id: RequestId; method: string }): Promise<void> {
    if (request.method === 'ping') return void this.toChild({ jsonrpc: '2.0', id: request.id, result: {} } as JSONRPCMessage).catch(() => {});
    // Each waiting session with one of its open calls, whose reply stream the request then travels on.
    const waiting = new Map<SharedSession, RequestId>();
    for (const routed of this.routes.values()) if (!routed.resolve && routed.method !== 'initialize') waiting.set(routed.session, routed.id);
    if (waiting.size !== 1) {
      const why = waiting.size === 0 ? 'no session has a call open' : `${waiting.size} sessions have calls open`;
      this.context.log(`the shared stdio server asked ${request.method}, which cannot be put to one client (${why}); refused`);
      return void this.toChild(errorAnswer(request.id, `mcp-msgpack-bridge: --shared cannot tell which client ${request.method} is for (${why}); refused`)).catch(() => {});
    }
    const [session, call] = [...waiting][0]!;
    const key = `mcp-msgpack-bridge-${randomUUID()}`;
    this.asked.set(key, { id: request.id, session });
    await session.reply({ ...request, id: key } as JSONRPCMessage, call);
  }

  private refuseAsked(key: string, why: string): void {
    const asked = this.asked.get(key);
    if (!asked) return;
    this.asked.delete(key);
    this.toChild(errorAnswer(asked.id, `mcp-msgpack-bridge: ${why}`)).catch(() => {});
  }

  /** Ends the child (its exit then ends every session, as if it had exited on its own). */
  private async endChild(): Promise<void> {
    await this.child?.close().catch(() => {});
  }

  private async childExited(): Promise<void> {
    this.context.log(`the shared stdio server (${this.context.command.command}) exited; ending every session`);
    this.child = undefined;
    this.spawned = undefined;
    this.initializeAnswer = undefined;
    this.deadlines.clearAll();
    this.asked.clear();
    const open = [...this.routes.values()];
    this.routes.clear();
    await Promise.all(
      open.map((routed) => {
        if (routed.reject) return routed.reject(new Error(`mcp-msgpack-bridge: the stdio server (${this.context.command.command}) exited before answering initialize`));
        return routed.session.reply(errorAnswer(routed.id, `mcp-msgpack-bridge: the stdio server (${this.context.command.command}) exited before answering`), routed.id);
      }),
    );
    await Promise.all([...this.sessions].map((session) => session.close()));
  }
}

/** One HTTP session on the shared child. */
export class SharedSession implements ConnectableServer, ServedSession {
  /** This session's initialize was answered from the first session's: its initialized stays here. */
  initializedByCache = false;
  principal: string | undefined;
  readonly toChild = new PendingSends();
  readonly outbox: StandaloneOutbox;
  private http: Transport | undefined;
  private registered = false;
  private closed = false;

  constructor(private readonly shared: SharedChild) {
    const { log, maxHeldNotifications } = shared.context;
    this.outbox = new StandaloneOutbox(
      (message) => void this.reply(message),
      maxHeldNotifications,
      log,
      () => `session ${this.http?.sessionId ?? ''}`,
    );
  }

  async connect(transport: Transport): Promise<void> {
    this.http = transport;
    this.shared.add(this);
    transport.onmessage = (message, extra) => {
      if (!this.registered) {
        this.registered = true;
        this.principal = principalOf(extra);
        this.shared.context.sessions.add(transport.sessionId, this);
      }
      this.toChild.track(this.shared.fromSession(this, message));
    };
    transport.onclose = () => void this.close();
    await transport.start();
  }

  async reply(message: JSONRPCMessage, relatedRequestId?: RequestId): Promise<void> {
    await this.http?.send(message, relatedRequestId === undefined ? undefined : { relatedRequestId }).catch(() => {});
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.toChild.end();
    this.shared.context.sessions.remove(this);
    this.shared.remove(this);
    await this.http?.close().catch(() => {});
  }
}
