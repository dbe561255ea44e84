import type { ConnectableServer, JSONRPCMessage, StdioMsgpackClientTransport, Transport } from 'mcp-msgpack-transport';
import { errorAnswer, isNotification, isRequest, isResponse, type RequestId } from '../jsonrpc.js';
import { oneLine, type Log } from '../log.js';
import { withoutNativeBytesOffer } from '../native-offer.js';
import { startStdioChild, type ChildCommand } from './stdio-child.js';

type Params = Record<string, unknown> & { _meta?: Record<string, unknown> };

/** A request of one session, as the child knows it (by a number of ours, so two sessions' ids never meet). */
interface Routed {
  session: SharedSession;
  id: RequestId;
  progressToken?: string | number;
  /** The first initialize: its answer is kept for every later session. */
  resolve?: (answer: unknown) => void;
  reject?: (error: Error) => void;
}

/**
 * `--shared`: one stdio child for every HTTP session, for servers that hold state worth sharing or are slow
 * to start. The child is initialized once (by the first session; later sessions get the same answer), every
 * request id and progress token is renumbered on the way in and restored on the way out, notifications that
 * belong to no request go to every session, and the child's own requests (sampling, roots) go to the session
 * that spoke last. A child that exits ends every session, each open request answered with an error; the
 * next session starts a new one.
 */
export class SharedChild {
  private child: StdioMsgpackClientTransport | undefined;
  private spawned: Promise<void> | undefined;
  private readonly sessions = new Set<SharedSession>();
  private readonly routes = new Map<number, Routed>();
  /** The child's requests to a client: our number -> the child's id and the session asked. */
  private readonly asked = new Map<string, { id: RequestId; session: SharedSession }>();
  private initializeAnswer: Promise<unknown> | undefined;
  private next = 0;
  private lastSpoke: SharedSession | undefined;

  constructor(
    private readonly command: ChildCommand,
    private readonly log: Log,
  ) {}

  session(): SharedSession {
    return new SharedSession(this);
  }

  add(session: SharedSession): void {
    this.sessions.add(session);
  }

  remove(session: SharedSession): void {
    this.sessions.delete(session);
    for (const [number, routed] of this.routes) if (routed.session === session) this.routes.delete(number);
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    this.spawned = undefined;
    if (child) {
      child.onclose = undefined;
      await child.close().catch(() => {});
    }
  }

  /** A message from a session's HTTP client, on its way to the child. */
  async fromSession(session: SharedSession, message: JSONRPCMessage): Promise<void> {
    this.lastSpoke = session;
    try {
      if (isRequest(message) && message.method === 'initialize') return await this.initialize(session, message);
      if (isNotification(message) && message.method === 'notifications/initialized' && session.initializedByCache) return;
      await this.toChild(this.renumbered(session, message));
    } catch (error) {
      if (isRequest(message)) await session.reply(errorAnswer(message.id, `mcp-msgpack-bridge: the shared stdio server could not be reached: ${oneLine(error)}`));
    }
  }

  /** The first initialize goes to the child; the others get its answer under their own id. */
  private async initialize(session: SharedSession, request: JSONRPCMessage & { id: RequestId; params?: Params }): Promise<void> {
    if (!this.initializeAnswer) {
      this.initializeAnswer = new Promise((resolve, reject) => {
        const number = ++this.next;
        this.routes.set(number, { session, id: request.id, resolve, reject });
        this.toChild({ ...request, id: number } as JSONRPCMessage).catch(reject);
      });
      this.initializeAnswer.catch(() => (this.initializeAnswer = undefined));
    } else session.initializedByCache = true;
    const answer = (await this.initializeAnswer) as { result?: unknown; error?: unknown };
    await session.reply({ jsonrpc: '2.0', id: request.id, ...('error' in answer ? { error: answer.error } : { result: answer.result }) } as JSONRPCMessage);
  }

  private renumbered(session: SharedSession, message: JSONRPCMessage): JSONRPCMessage {
    if (isRequest(message)) {
      const number = ++this.next;
      const params = message.params as Params | undefined;
      const progressToken = params?._meta?.progressToken as string | number | undefined;
      this.routes.set(number, { session, id: message.id, progressToken });
      const renamedParams = progressToken === undefined ? params : { ...params, _meta: { ...params!._meta, progressToken: number } };
      return { ...message, id: number, ...(renamedParams ? { params: renamedParams } : {}) } as JSONRPCMessage;
    }
    if (isNotification(message) && message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      for (const [number, routed] of this.routes) {
        if (routed.session === session && routed.id === requestId) return { ...message, params: { ...message.params, requestId: number } } as JSONRPCMessage;
      }
      return message;
    }
    if (isResponse(message)) {
      // An answer to one of the child's requests: back under the child's own id.
      const asked = this.asked.get(String(message.id));
      if (asked) {
        this.asked.delete(String(message.id));
        return { ...message, id: asked.id } as JSONRPCMessage;
      }
    }
    return message;
  }

  private async toChild(message: JSONRPCMessage): Promise<void> {
    this.spawned ??= this.spawn();
    await this.spawned;
    await this.child!.send(withoutNativeBytesOffer(message));
  }

  private async spawn(): Promise<void> {
    this.child = await startStdioChild(this.command, this.log, { message: (message) => void this.fromChild(message), exit: () => void this.childExited() });
  }

  private async fromChild(message: JSONRPCMessage): Promise<void> {
    if (isResponse(message) && typeof message.id === 'number') {
      const routed = this.routes.get(message.id);
      if (!routed) return;
      this.routes.delete(message.id);
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
      await Promise.all([...this.sessions].map((session) => session.reply(message)));
      return;
    }
    if (isRequest(message)) {
      const session = this.lastSpoke && this.sessions.has(this.lastSpoke) ? this.lastSpoke : [...this.sessions][0];
      if (!session) return void this.toChild(errorAnswer(message.id, 'mcp-msgpack-bridge: no client connected')).catch(() => {});
      const number = `mcp-msgpack-bridge-${++this.next}`;
      this.asked.set(number, { id: message.id, session });
      await session.reply({ ...message, id: number } as JSONRPCMessage);
    }
  }

  private async childExited(): Promise<void> {
    this.log(`the shared stdio server (${this.command.command}) exited; ending every session`);
    this.child = undefined;
    this.spawned = undefined;
    this.initializeAnswer = undefined;
    const open = [...this.routes.values()];
    this.routes.clear();
    await Promise.all(
      open.map((routed) => {
        if (routed.reject) return routed.reject(new Error('the stdio server exited'));
        return routed.session.reply(errorAnswer(routed.id, `mcp-msgpack-bridge: the stdio server (${this.command.command}) exited before answering`), routed.id);
      }),
    );
    await Promise.all([...this.sessions].map((session) => session.close()));
  }
}

/** One HTTP session on the shared child. */
export class SharedSession implements ConnectableServer {
  /** This session's initialize was answered from the first session's: its initialized stays here. */
  initializedByCache = false;
  private http: Transport | undefined;
  private closed = false;

  constructor(private readonly shared: SharedChild) {}

  async connect(transport: Transport): Promise<void> {
    this.http = transport;
    this.shared.add(this);
    transport.onmessage = (message) => void this.shared.fromSession(this, message);
    transport.onclose = () => void this.close();
    await transport.start();
  }

  async reply(message: JSONRPCMessage, relatedRequestId?: RequestId): Promise<void> {
    await this.http?.send(message, relatedRequestId === undefined ? undefined : { relatedRequestId }).catch(() => {});
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.shared.remove(this);
    await this.http?.close().catch(() => {});
  }
}
