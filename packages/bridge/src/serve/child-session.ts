import type { ConnectableServer, JSONRPCMessage, StdioMsgpackClientTransport, Transport } from 'mcp-msgpack-transport';
import { errorAnswer, isNotification, isRequest, isResponse, type RequestId } from '../jsonrpc.js';
import { oneLine } from '../log.js';
import { withoutNativeBytesOffer } from '../native-offer.js';
import { Deadlines, deadlineMessage } from './deadlines.js';
import { StandaloneOutbox } from './outbox.js';
import { PendingSends, principalOf, type ServedSession } from './served-session.js';
import type { ServeContext } from './serve-context.js';
import { startStdioChild } from './stdio-child.js';

/**
 * One HTTP session served by its own stdio child (the reverse mode's default): messages pass unchanged both
 * ways (but for the native-bytes offer, which the endpoint answers itself: native-offer.ts), the child is
 * spawned with the session's first message and ended with the session, and a child that exits ends the
 * session, each request it left unanswered getting a JSON-RPC error first. Every request has a deadline
 * (initialize a shorter one, after which the child is ended too).
 */
export class ChildSession implements ConnectableServer, ServedSession {
  principal: string | undefined;
  readonly toChild = new PendingSends();
  readonly outbox: StandaloneOutbox;
  private http: Transport | undefined;
  private child: StdioMsgpackClientTransport | undefined;
  private spawned: Promise<void> | undefined;
  private registered = false;
  /** Requests of the HTTP client the child has not answered yet. */
  private readonly unanswered = new Set<RequestId>();
  private readonly deadlines = new Deadlines<RequestId>();
  /** progressToken -> request, so progress notifications travel on their request's reply stream. */
  private readonly progress = new Map<string | number, RequestId>();
  private closed = false;

  constructor(private readonly context: ServeContext) {
    this.outbox = new StandaloneOutbox(
      (message) => void this.sendToClient(message),
      context.maxHeldNotifications,
      context.log,
      () => `session ${this.http?.sessionId ?? ''}`,
    );
  }

  async connect(transport: Transport): Promise<void> {
    this.http = transport;
    transport.onmessage = (message, extra) => {
      if (!this.registered) {
        // The first message is the initialize: the session belongs to whoever sent it.
        this.registered = true;
        this.principal = principalOf(extra);
        this.context.sessions.add(transport.sessionId, this);
      }
      this.toChild.track(this.fromClient(message));
    };
    transport.onclose = () => void this.close();
    await transport.start();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.toChild.end();
    // A child whose output waits for the GET stream's reader must be read to its end, or it never closes.
    this.outbox.resume();
    this.context.sessions.remove(this);
    this.deadlines.clearAll();
    const child = this.child;
    if (child) {
      child.onclose = undefined;
      await child.close().catch(() => {});
    }
    await this.http?.close().catch(() => {});
  }

  private async fromClient(message: JSONRPCMessage): Promise<void> {
    if (isRequest(message)) {
      this.unanswered.add(message.id);
      const token = (message.params?._meta as { progressToken?: string | number } | undefined)?.progressToken;
      if (token !== undefined) this.progress.set(token, message.id);
      this.startDeadline(message.id, message.method === 'initialize');
    }
    if (isNotification(message) && message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (requestId !== undefined) this.answered(requestId);
    }
    try {
      this.spawned ??= this.spawn();
      await this.spawned;
      await this.child!.send(withoutNativeBytesOffer(message));
    } catch (error) {
      if (isRequest(message) && this.answered(message.id)) {
        await this.sendToClient(errorAnswer(message.id, `mcp-msgpack-bridge: the stdio server could not be started or written to: ${oneLine(error)}`), message.id);
        // No child (at the cap, or it could not start): the session has nothing to serve with.
        if (message.method === 'initialize') await this.close();
      }
    }
  }

  /** The request's deadline: an error for the client, a cancel for the child; at initialize, the child ends. */
  private startDeadline(id: RequestId, initialize: boolean): void {
    const ms = initialize ? this.context.initTimeoutMs : this.context.requestTimeoutMs;
    this.deadlines.set(id, ms, () => {
      if (!this.answered(id)) return;
      void this.sendToClient(errorAnswer(id, deadlineMessage(this.context.command.command, ms, initialize)), id);
      if (initialize) {
        this.context.log(`the stdio server (${this.context.command.command}) did not answer initialize within ${ms} ms; ending its session`);
        void this.close();
      } else {
        this.child?.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'mcp-msgpack-bridge: request timed out' } } as JSONRPCMessage).catch(() => {});
      }
    });
  }

  /** Forgets an open request; false if it was not open (answered already, or its deadline passed). */
  private answered(id: RequestId): boolean {
    this.deadlines.clear(id);
    for (const [token, request] of this.progress) if (request === id) this.progress.delete(token);
    return this.unanswered.delete(id);
  }

  private async spawn(): Promise<void> {
    this.child = await startStdioChild(this.context.command, this.context.log, this.context.children, {
      message: (message) => void this.fromChild(message),
      exit: () => void this.childExited(),
      spawned: (process) => {
        // This session's own child: when its client does not read the GET stream, the child waits.
        const stdout = process.stdout;
        if (!stdout) return;
        this.outbox.source = { pause: () => stdout.pause(), resume: () => stdout.resume() };
        stdout.on('data', (chunk: Buffer) => this.outbox.read(chunk.length));
        // Exited while made to wait: what it wrote is read (held or dropped), so its pipes can close.
        process.once('exit', () => this.outbox.resume());
      },
    });
  }

  private async fromChild(message: JSONRPCMessage): Promise<void> {
    if (isResponse(message)) {
      // An answer after the deadline's error (or to a request cancelled) is not sent twice.
      if (message.id !== undefined && this.answered(message.id)) await this.sendToClient(message, message.id);
      return;
    }
    if (isNotification(message)) {
      const token = message.method === 'notifications/progress' ? (message.params as { progressToken?: string | number } | undefined)?.progressToken : undefined;
      const request = token === undefined ? undefined : this.progress.get(token);
      if (request !== undefined) await this.sendToClient(message, request);
      else this.outbox.deliver(message);
      return;
    }
    await this.sendToClient(message);
  }

  private async sendToClient(message: JSONRPCMessage, relatedRequestId?: RequestId): Promise<void> {
    await this.http?.send(message, relatedRequestId === undefined ? undefined : { relatedRequestId }).catch((error: unknown) => this.context.log(`could not send to the HTTP client: ${oneLine(error)}`));
  }

  /** The child went away on its own: every open request gets an error, then the session ends (404 after). */
  private async childExited(): Promise<void> {
    if (this.closed) return;
    this.context.log(`the stdio server (${this.context.command.command}) exited; ending its session`);
    const open = [...this.unanswered];
    this.unanswered.clear();
    this.deadlines.clearAll();
    await Promise.all(open.map((id) => this.sendToClient(errorAnswer(id, `mcp-msgpack-bridge: the stdio server (${this.context.command.command}) exited before answering`), id)));
    this.child = undefined;
    await this.close();
  }
}
