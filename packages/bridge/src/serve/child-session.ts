import type { ConnectableServer, JSONRPCMessage, StdioMsgpackClientTransport, Transport } from 'mcp-msgpack-transport';
import { errorAnswer, isNotification, isRequest, isResponse, type RequestId } from '../jsonrpc.js';
import { oneLine, type Log } from '../log.js';
import { withoutNativeBytesOffer } from '../native-offer.js';
import { startStdioChild, type ChildCommand } from './stdio-child.js';

/**
 * One HTTP session served by its own stdio child (the reverse mode's default): messages pass unchanged both
 * ways (but for the native-bytes offer, which the endpoint answers itself: native-offer.ts), the child is spawned with the session's first message and ended with the session, and a child that
 * exits ends the session, each request it left unanswered getting a JSON-RPC error first.
 */
export class ChildSession implements ConnectableServer {
  private http: Transport | undefined;
  private child: StdioMsgpackClientTransport | undefined;
  private spawned: Promise<void> | undefined;
  /** Requests of the HTTP client the child has not answered yet. */
  private readonly unanswered = new Set<RequestId>();
  /** progressToken -> request, so progress notifications travel on their request's reply stream. */
  private readonly progress = new Map<string | number, RequestId>();
  private closed = false;

  constructor(
    private readonly command: ChildCommand,
    private readonly log: Log,
  ) {}

  async connect(transport: Transport): Promise<void> {
    this.http = transport;
    transport.onmessage = (message) => void this.toChild(message);
    transport.onclose = () => void this.close();
    await transport.start();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const child = this.child;
    if (child) {
      child.onclose = undefined;
      await child.close().catch(() => {});
    }
    await this.http?.close().catch(() => {});
  }

  private async toChild(message: JSONRPCMessage): Promise<void> {
    if (isRequest(message)) {
      this.unanswered.add(message.id);
      const token = (message.params?._meta as { progressToken?: string | number } | undefined)?.progressToken;
      if (token !== undefined) this.progress.set(token, message.id);
    }
    try {
      this.spawned ??= this.spawn();
      await this.spawned;
      await this.child!.send(withoutNativeBytesOffer(message));
    } catch (error) {
      if (isRequest(message) && this.unanswered.delete(message.id)) {
        await this.http?.send(errorAnswer(message.id, `mcp-msgpack-bridge: the stdio server could not be started or written to: ${oneLine(error)}`), { relatedRequestId: message.id }).catch(() => {});
      }
    }
  }

  private async spawn(): Promise<void> {
    this.child = await startStdioChild(this.command, this.log, { message: (message) => void this.fromChild(message), exit: () => void this.childExited() });
  }

  private async fromChild(message: JSONRPCMessage): Promise<void> {
    let relatedRequestId: RequestId | undefined;
    if (isResponse(message)) {
      this.unanswered.delete(message.id);
      relatedRequestId = message.id;
    } else if (isNotification(message) && message.method === 'notifications/progress') {
      relatedRequestId = this.progress.get((message.params as { progressToken?: string | number } | undefined)?.progressToken ?? '');
    }
    if (isResponse(message)) for (const [token, id] of this.progress) if (id === message.id) this.progress.delete(token);
    await this.http?.send(message, relatedRequestId === undefined ? undefined : { relatedRequestId }).catch((error: unknown) => this.log(`could not send to the HTTP client: ${oneLine(error)}`));
  }

  /** The child went away on its own: every open request gets an error, then the session ends (404 after). */
  private async childExited(): Promise<void> {
    if (this.closed) return;
    this.log(`the stdio server (${this.command.command}) exited; ending its session`);
    const open = [...this.unanswered];
    this.unanswered.clear();
    await Promise.all(open.map((id) => this.http?.send(errorAnswer(id, `mcp-msgpack-bridge: the stdio server (${this.command.command}) exited before answering`), { relatedRequestId: id }).catch(() => {})));
    this.child = undefined;
    await this.close();
  }
}
