import { isRequest, isResponse as isReply } from '../../../jsonrpc/kinds.js';
import type { EventStore, JSONRPCMessage, RequestId, TransportSendOptions } from '../../../mcp/types.js';
import type { EventFormat } from './event-format.js';
import { EventStream } from './event-stream.js';
import { respond, sessionHeaders, singleResponse, type ReplyCodec } from './responses.js';
import type { SharedEventStore } from './shared-event-store.js';

const STANDALONE_STREAM = '_GET_stream';
/** What a cancelled request is settled with: the SDK sends no answer to it. */
const NO_ANSWER = Symbol('no answer: cancelled');
/**
 * Messages for the GET stream held while none is open. A client opens it only after its `initialized`
 * notification was answered, so a server that sends a request at that moment (roots/list, say) would
 * otherwise lose it; the SDK's transport drops such messages.
 */
const MAX_HELD_FOR_GET_STREAM = 100;

/**
 * What the table asks of a held reply (post-replies.ts's HeldReply, SPEC.md 9.6.2): whether its stream was
 * asked for, to ask for it (once; every caller waits for the same opening), and to stop its timer and abort
 * watch. Stated here so the table does not import the module that drives it.
 */
export interface HeldReplyControl {
  readonly opened: boolean;
  open(): Promise<void>;
  dispose(): void;
}

/**
 * Where a POST's replies go: its stream, or the one body that answers it (enableJsonResponse, or a held
 * reply, which may still open its stream: SPEC.md 9.6.2).
 */
interface StreamEntry {
  stream?: EventStream;
  resolveSingle?: (response: Response) => void;
  codec?: ReplyCodec;
  held?: HeldReplyControl;
}

export interface StreamTableOptions {
  eventStore?: EventStore;
  enableJsonResponse?: boolean;
  /** The session's id (undefined until initialize, and in stateless mode). */
  sessionId(): string | undefined;
  report(error: Error): void;
}

/**
 * One transport's open streams and the requests they answer: routes each message the server sends to the
 * stream of the request it relates to (or to the GET stream), collects a POST's responses, and remembers
 * which streams a client may resume from the event store.
 */
export class StreamTable {
  private readonly streams = new Map<string, StreamEntry>();
  private readonly requestToStream = new Map<RequestId, string>();
  private readonly responses = new Map<RequestId, JSONRPCMessage | typeof NO_ANSWER>();
  private readonly resumable = new Set<string>();
  private heldForGetStream: { message: JSONRPCMessage; eventId?: string }[] = [];
  /** Streams whose events the store failed to take: sent live without ids from then on, not stored. */
  private readonly unstored = new Set<string>();
  /** Whether the GET stream has events in the store (a shared store is told when it ends). */
  private storedStandalone = false;
  private closedAll = false;

  constructor(private readonly options: StreamTableOptions) {}

  get closed(): boolean {
    return this.closedAll;
  }

  /** The GET stream's id in the event store: one per session, as a store may be shared by every session (and every instance). */
  get standaloneId(): string {
    const sessionId = this.options.sessionId();
    return sessionId === undefined ? STANDALONE_STREAM : `${STANDALONE_STREAM}:${sessionId}`;
  }

  get pendingRequestCount(): number {
    return this.requestToStream.size;
  }

  get openStreamCount(): number {
    let count = 0;
    for (const entry of this.streams.values()) if (entry.stream && !entry.stream.closed) count++;
    return count;
  }

  has(streamId: string): boolean {
    return this.streams.has(streamId);
  }

  /** A new stream under this id; it leaves the table when the client goes away. */
  open(streamId: string, format: EventFormat, signal?: AbortSignal): EventStream {
    const stream = this.unlisted(streamId, format, signal);
    this.streams.set(streamId, { stream });
    return stream;
  }

  /** A POST's stream not yet in the table (a held reply's, primed before `install` puts it there). */
  unlisted(streamId: string, format: EventFormat, signal?: AbortSignal): EventStream {
    return new EventStream(format, (cancelled) => this.forgetStream(streamId, cancelled), signal);
  }

  /** A stream made elsewhere (a replay), replacing any open under its id. */
  adopt(streamId: string, stream: EventStream): void {
    this.close(streamId);
    this.streams.set(streamId, { stream });
    this.resumable.add(streamId);
  }

  /** enableJsonResponse: the POST's replies, once all are in, resolve it as one body. */
  openSingle(streamId: string, codec: ReplyCodec, resolveSingle: (response: Response) => void): void {
    this.streams.set(streamId, { resolveSingle, codec });
  }

  /** A held reply (SPEC.md 9.6.2): one body if its final response comes first, else `held` opens its stream. */
  hold(streamId: string, held: HeldReplyControl, codec: ReplyCodec, resolveSingle: (response: Response) => void): void {
    this.streams.set(streamId, { resolveSingle, codec, held });
  }

  /**
   * A held reply's stream, opened and primed, takes its place; false if the reply is held no more (client
   * gone). The entry keeps `held`: every later message waits for its (settled) opening as the first did, so
   * none overtakes another.
   */
  install(streamId: string, held: HeldReplyControl, stream: EventStream): boolean {
    if (!this.isHeld(streamId, held)) return false;
    held.dispose();
    this.streams.set(streamId, { stream, held });
    return true;
  }

  private isHeld(streamId: string, held: HeldReplyControl): boolean {
    const entry = this.streams.get(streamId);
    return entry?.held === held && !entry.stream;
  }

  /**
   * The client left a held reply: nothing was written, and nothing of it will be stored (no client holds
   * an event id of it to resume from). Its request's answer then meets no connection, as on a cut stream.
   */
  dropHeld(streamId: string, held: HeldReplyControl): boolean {
    if (!this.isHeld(streamId, held)) return false;
    this.streams.delete(streamId);
    this.unstored.add(streamId);
    return true;
  }

  /** The first request of `messages` whose id is in flight in this session already, or in the same POST. */
  inFlightId(messages: JSONRPCMessage[]): RequestId | undefined {
    const seen = new Set<RequestId>();
    for (const message of messages) {
      if (!isRequest(message)) continue;
      if (this.requestToStream.has(message.id) || seen.has(message.id)) return message.id;
      seen.add(message.id);
    }
    return undefined;
  }

  /** The requests of a POST, answered on its stream. */
  bind(messages: JSONRPCMessage[], streamId: string): void {
    for (const message of messages) if (isRequest(message)) this.requestToStream.set(message.id, streamId);
  }

  /** Undoes open and bind for a POST that failed before its stream was returned. */
  abandon(streamId: string, messages: JSONRPCMessage[]): void {
    const entry = this.streams.get(streamId);
    if (entry?.held && !entry.stream) {
      entry.held.dispose();
      this.streams.delete(streamId);
    } else this.close(streamId);
    this.resumable.delete(streamId);
    for (const message of messages) if (isRequest(message)) this.requestToStream.delete(message.id);
  }

  markResumable(streamId: string): void {
    this.resumable.add(streamId);
  }

  /**
   * Stores an event of a stream, or (the store failed: unreachable, stalled, over a budget) reports why and
   * gives no id: the event still goes out live, and the stream is stored no more. The store marks it not
   * resumable, so a resume gets an error rather than a stream with a gap.
   */
  async store(streamId: string, message: JSONRPCMessage): Promise<string | undefined> {
    const store = this.options.eventStore;
    if (!store || this.unstored.has(streamId)) return undefined;
    try {
      return await store.storeEvent(streamId, message);
    } catch (error) {
      this.unstored.add(streamId);
      this.resumable.delete(streamId);
      this.options.report(error as Error);
      return undefined;
    }
  }

  isOpen(streamId: string, stream: EventStream): boolean {
    return this.streams.get(streamId)?.stream === stream;
  }

  /**
   * Ends a stream (or a pending single reply) by id; the client may resume a stream from the event store.
   * A held reply is opened as its stream first and that stream ended (SPEC.md 9.6.2 rule 7), so a
   * resumable one carries its priming event.
   */
  close(streamId: string): void {
    const entry = this.streams.get(streamId);
    if (!entry) return;
    if (entry.stream) this.endStream(streamId, entry.stream);
    else if (entry.held) this.closeHeld(streamId, entry.held);
    else this.streams.delete(streamId);
  }

  private closeHeld(streamId: string, held: HeldReplyControl): void {
    const opening = held.open();
    const opened = this.streams.get(streamId)?.stream;
    // Opened at once (nothing to prime, or the table is closing): ended now, before closeAll clears the table.
    if (opened) this.endStream(streamId, opened);
    else void opening.then(() => this.close(streamId));
  }

  closeRequestStream(requestId: RequestId): void {
    const streamId = this.requestToStream.get(requestId);
    if (streamId) this.close(streamId);
  }

  endStream(streamId: string, stream: EventStream): void {
    this.forgetStream(streamId, stream);
    stream.close();
  }

  forgetStream(streamId: string, stream: EventStream): void {
    if (this.streams.get(streamId)?.stream === stream) this.streams.delete(streamId);
  }

  /** The GET stream's messages sent while it was not open, handed over once. */
  takeHeld(): { message: JSONRPCMessage; eventId?: string }[] {
    const held = this.heldForGetStream;
    this.heldForGetStream = [];
    return held;
  }

  /** Whether this transport stores the stream's events itself (and so sends new ones live). */
  produces(streamId: string): boolean {
    if (streamId === this.standaloneId) return true;
    for (const id of this.requestToStream.values()) if (id === streamId) return true;
    return false;
  }

  /** Writes one event, reporting a message that cannot be encoded; false if it was not written. */
  write(stream: EventStream, message: JSONRPCMessage, eventId?: string): boolean {
    try {
      return stream.send(message, eventId);
    } catch (error) {
      this.options.report(error as Error);
      return false;
    }
  }

  /** Ends every stream; a shared store learns which of its streams will get no more events. */
  closeAll(): void {
    this.closedAll = true;
    this.abandonStoredStreams();
    for (const streamId of [...this.streams.keys()]) this.close(streamId);
    this.streams.clear();
    this.responses.clear();
    this.resumable.clear();
    this.unstored.clear();
    this.heldForGetStream = [];
  }

  private abandonStoredStreams(): void {
    const store: SharedEventStore | undefined = this.options.eventStore;
    if (!store?.streamAbandoned) return;
    const unfinished = new Set(this.requestToStream.values());
    if (this.storedStandalone) unfinished.add(this.standaloneId);
    for (const streamId of unfinished) {
      if (this.unstored.has(streamId)) continue;
      Promise.resolve(store.streamAbandoned(streamId)).catch((error: unknown) => this.options.report(error as Error));
    }
  }

  /** Routes one message the server sends (Transport.send). */
  route(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const isResponse = isReply(message);
    const requestId = isResponse ? message.id : options?.relatedRequestId;
    if (requestId !== undefined) return this.routeToRequest(message, requestId, isResponse);
    if (isResponse) return Promise.reject(new Error('Cannot send a response on a standalone SSE stream unless resuming a previous client request'));
    return this.routeToStandalone(message);
  }

  private async routeToStandalone(message: JSONRPCMessage): Promise<void> {
    const eventId = await this.store(this.standaloneId, message);
    if (eventId !== undefined) this.storedStandalone = true;
    const standalone = this.streams.get(this.standaloneId)?.stream;
    if (standalone) {
      if (eventId === undefined || !standalone.replayedEventIds?.has(eventId)) this.write(standalone, message, eventId);
      return;
    }
    if (this.closedAll) return;
    this.heldForGetStream.push({ message, eventId });
    if (this.heldForGetStream.length > MAX_HELD_FOR_GET_STREAM) {
      this.heldForGetStream.shift();
      this.options.report(new Error(`no GET stream open: dropped the oldest of ${MAX_HELD_FOR_GET_STREAM} held messages`));
    }
  }

  /** A request's message goes to its POST's stream (stored first, when there is a store) or into its one body. */
  private async routeToRequest(message: JSONRPCMessage, requestId: RequestId, isResponse: boolean): Promise<void> {
    const streamId = this.requestToStream.get(requestId);
    if (!streamId) throw new Error(`No connection established for request ID: ${String(requestId)}`);
    const held = this.streams.get(streamId)?.held;
    if (held) {
      // The request's final response before anything else: one body, nothing stored (SPEC.md 9.6.2 rule 3).
      if (isResponse && !held.opened) return this.settle(streamId, requestId, message, this.streams.get(streamId));
      // Anything else opens the stream, and this message and every later one wait for it (rule 4).
      await held.open();
    }
    const streaming = !this.options.enableJsonResponse;
    const eventId = streaming ? await this.store(streamId, message) : undefined;
    const entry = this.streams.get(streamId);
    const stream = streaming ? entry?.stream : undefined;
    if (stream && (eventId === undefined || !stream.replayedEventIds?.has(eventId))) {
      if (this.write(stream, message, eventId) && eventId !== undefined) this.resumable.add(streamId);
    }
    if (isResponse) this.settle(streamId, requestId, message, entry);
  }

  /**
   * The client cancelled a request (`notifications/cancelled`). The SDK sends a cancelled request no answer,
   * so it is settled here without one: its id is free again (SPEC.md 5.3), and once the POST's other
   * requests are answered its stream ends (or its one body goes, 202 if nothing of it was answered).
   * Otherwise the stream stayed open on keep-alives and the id in flight for the session's life. A resumable
   * stream with nothing answered on it is left open, as the SDK leaves it: ended, its client would resume it
   * (it saw event ids and no answer), and a resumed stream waits for events that never come.
   */
  cancel(requestId: RequestId): void {
    const streamId = this.requestToStream.get(requestId);
    if (streamId === undefined || this.responses.has(requestId)) return;
    this.settle(streamId, requestId, NO_ANSWER, this.streams.get(streamId));
  }

  /** Records a response; once every request of its POST has one, ends the stream (or sends the one body). */
  private settle(streamId: string, requestId: RequestId, message: JSONRPCMessage | typeof NO_ANSWER, entry: StreamEntry | undefined): void {
    this.responses.set(requestId, message);
    const related = [...this.requestToStream].filter(([, id]) => id === streamId).map(([id]) => id);
    if (!related.every((id) => this.responses.has(id))) return;
    const replies = related.map((id) => this.responses.get(id)!).filter((reply): reply is JSONRPCMessage => reply !== NO_ANSWER);
    for (const id of related) {
      this.responses.delete(id);
      this.requestToStream.delete(id);
    }
    if (!entry) {
      // A held reply whose client left was never stored: forgotten with its request.
      this.unstored.delete(streamId);
      return message === NO_ANSWER ? undefined : this.settleWithoutConnection(streamId, requestId);
    }
    if (replies.length === 0 && this.resumable.has(streamId)) return;
    if (entry.resolveSingle && !entry.stream) {
      entry.held?.dispose();
      this.streams.delete(streamId);
      const sessionId = this.options.sessionId();
      entry.resolveSingle(replies.length === 0 ? respond(202, null, sessionHeaders(sessionId)) : singleResponse(entry.codec!, sessionId, replies.length === 1 ? replies[0]! : replies));
    }
    this.close(streamId);
    this.resumable.delete(streamId);
    this.unstored.delete(streamId);
  }

  /** Closed session, or a cut stream whose events wait in the store for the client to resume. */
  private settleWithoutConnection(streamId: string, requestId: RequestId): void {
    if (this.closedAll) return;
    if (!this.options.enableJsonResponse && this.options.eventStore && this.resumable.has(streamId)) {
      this.resumable.delete(streamId);
      return;
    }
    throw new Error(`No connection established for request ID: ${String(requestId)}`);
  }
}
