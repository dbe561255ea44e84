import { isRequest } from '../../../jsonrpc/kinds.js';
import type { JSONRPCMessage, JSONRPCRequest, MessageExtraInfo, RequestId, Transport, TransportSendOptions } from '../../../mcp/types.js';
import type { MessageAdapter, WireKind } from '../../../codec/message-codec.js';
import { adapterNeedsMsgpack, chooseWire } from '../../../codec/encoding-policy.js';
import { runtime } from '../../../runtime/current.js';
import { createWireCodecs, type TypedWireCodecs } from '../../../codec/wire-codecs.js';
import { adapterFromOption } from '../../../native-bytes/adapter.js';
import { DEFAULT_MAX_REQUEST_BODY_BYTES, resolveReceiveLimits } from '../../../wire/receive-limits.js';
import { TRANSPORT_ERROR } from '../../../jsonrpc/error-codes.js';
import { createEventFormats, type EventFormat, type EventFormats } from './event-format.js';
import { DEFAULT_KEEP_ALIVE_MS, EventStream } from './event-stream.js';
import { checkHostAndOrigin } from './host-check.js';
import { classifyEra } from './era-check.js';
import { requestEra, type RequestEra } from './request-era.js';
import { idOf, listenRequestOf, postWires, readPostMessages, requestInfoOf, type PostMessages, type PostWires } from './post-messages.js';
import { SESSION_GONE, isRefusal, refusalResponse, respond, serverFailure, singleResponse, streamResponse, type Refusal, type ReplyCodec } from './responses.js';
import type { HttpHandleOptions, HttpMsgpackServerOptions, HttpRequestLike } from './server-options.js';
import { StreamTable } from './stream-table.js';
import { HeldReply, holdInterval } from './held-reply.js';

/** What every message of one POST is handed to the server with. */
export type RequestExtra = Pick<MessageExtraInfo, 'authInfo' | 'requestInfo' | 'request'>;

/** The server's own message handler, as connect() set it. */
export type ServerDispatch = (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

/**
 * What a transport does with a POST of a modern revision (2026-07-28 and later: no session, the client's
 * envelope in each request): per-request/ provides it. The exchange runs the steps every POST takes and
 * asks the path at each one that only the revision knows.
 */
export interface ModernPath {
  /** The modern revisions served; a body claiming another is answered -32022. */
  readonly revisions: readonly string[];
  /** Serve one request after another on this transport (an endpoint keeps it between requests). */
  readonly sequential: boolean;
  /** Lets the POST's messages in (Mcp-Param-* agree with the arguments), or the refusal. */
  admit(req: HttpRequestLike, messages: JSONRPCMessage[], extra: RequestExtra): Promise<Refusal | undefined>;
  /** A `subscriptions/listen` served by the endpoint: a stream, or the error that answers it; undefined when none serves it. */
  listen(request: JSONRPCRequest, format: EventFormat, signal?: AbortSignal): EventStream | JSONRPCMessage | undefined;
  /** Whether a message the server sends is the path's own (the reply to a listing it asked for), kept from every client. */
  keeps(message: JSONRPCMessage): boolean;
  close(): void;
}

/** How a reply stream is made resumable from the event store (sessions/ provides it). */
export interface StreamReplay {
  /** Opens the stream for resumption before any message of it is handed over. */
  prime(stream: EventStream, streamId: string, messages: JSONRPCMessage[]): Promise<void>;
  /** What a message on a resumable stream is handed over with. */
  extraFor(message: JSONRPCMessage, extra: RequestExtra): MessageExtraInfo;
}

const NO_REVISIONS: readonly string[] = [];
const METHOD_NOT_ALLOWED: Refusal = { status: 405, code: TRANSPORT_ERROR, message: 'Method not allowed.', headers: { Allow: 'GET, POST, DELETE' } };

/**
 * What either serving path does with one HTTP exchange: the Transport a server connects to, Host/Origin
 * checked once, a POST's wires and body read once and its era classified once, replies as one body or on a
 * stream of the table, refusals. The session path (sessions/) and the per-request path (per-request/) add
 * what only they do: `serveSessionEra` for 2025-11-25 bodies, a ModernPath for 2026-07-28 ones.
 */
export abstract class ExchangeTransport implements Transport {
  sessionId?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  /** @internal */
  protected readonly options: HttpMsgpackServerOptions;
  /** @internal */
  protected readonly modern: ModernPath | undefined;
  /** The request body cap (`maxMessageBytes`). */
  private readonly maxBodyBytes: number;
  /** @internal */
  protected readonly keepAliveMs: number;
  /** Whether a POST of one request waits for its first message before choosing a body or a stream (SPEC.md 9.6.2). */
  private readonly holdsReplies: boolean;
  private readonly codecs: TypedWireCodecs;
  /** Whether a body must go as MessagePack (native bytes), for the per-message policy; made on first use. */
  private needsMsgpack: ((body: unknown) => boolean) | undefined;
  /** @internal */
  protected readonly formats: EventFormats;
  /** @internal */
  protected readonly table: StreamTable;
  /** @internal */
  protected readonly report = (error: Error) => this.onerror?.(error);
  private started = false;
  /** The server's own message handler, as connect() set it (wrappers added later do not see the listings). */
  private serverOnmessage?: ServerDispatch;
  private servedOne = false;

  /** @internal Made by a subclass, with the modern path it serves, if any. */
  constructor(options: HttpMsgpackServerOptions, modern?: (dispatch: () => ServerDispatch | undefined) => ModernPath) {
    this.options = options;
    const limits = resolveReceiveLimits(options, DEFAULT_MAX_REQUEST_BODY_BYTES);
    this.maxBodyBytes = limits.maxMessageBytes;
    this.keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    // With an event store every reply is resumable from its first byte unless the operator says otherwise.
    this.holdsReplies = (options.replyStreams ?? (options.eventStore ? 'always' : 'when-needed')) === 'when-needed';
    // One adapter per transport, i.e. per session (or per request when stateless), shared by both wires.
    const adapter = options.adapterFactory?.() ?? adapterFromOption('server', options.nativeBytes, { stateless: !options.sessionIdGenerator });
    this.codecs = createWireCodecs({ adapter, maxDepth: limits.maxDepth, decodeBudget: limits.decodeBudget });
    this.formats = createEventFormats(this.codecs);
    const { eventStore, enableJsonResponse } = options;
    this.table = new StreamTable({ eventStore, enableJsonResponse, sessionId: () => this.sessionId, report: this.report });
    this.modern = modern?.(() => this.serverOnmessage ?? this.onmessage);
  }

  /** This session's message adapter, as made by adapterFactory. */
  get adapter(): MessageAdapter {
    return this.codecs.msgpack.adapter;
  }

  /** @internal Requests handed to the server and not answered yet. */
  get pendingRequestCount(): number {
    return this.table.pendingRequestCount;
  }

  /** @internal Streams currently open to clients (for leak checks). */
  get openStreamCount(): number {
    return this.table.openStreamCount;
  }

  /** @internal */
  protected get closed(): boolean {
    return this.table.closed;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('Transport already started');
    this.started = true;
    this.serverOnmessage = this.onmessage;
  }

  /** Handles one request arriving on its own: Host/Origin checked, the era read, then served. */
  /** @internal */
  protected async handleWebRequest(req: HttpRequestLike, options: HttpHandleOptions = {}): Promise<Response> {
    const refused = checkHostAndOrigin(this.options, req.headers.get('host'), req.headers.get('origin'), options.localAddress);
    if (refused) return this.refuse(req, { status: 403, code: TRANSPORT_ERROR, message: refused });
    return this.serveRouted(req, options, requestEra(req.headers));
  }

  /**
   * @internal A request an endpoint routed here: it checked Host/Origin and read the era from the headers
   * (WebMcpHttpHandler), so neither happens again.
   */
  async serveRouted(req: HttpRequestLike, options: HttpHandleOptions, era: RequestEra): Promise<Response> {
    if (this.closed) return this.refuse(req, SESSION_GONE);
    if (!this.options.sessionIdGenerator && this.servedOne && !this.modern?.sequential) {
      throw new Error('Stateless transport cannot be reused across requests. Create a new transport per request.');
    }
    this.servedOne = true;
    switch (req.method) {
      case 'POST':
        return this.handlePost(req, options, era);
      case 'GET':
        return this.handleGet(req, options);
      case 'DELETE':
        return this.handleDelete(req, options);
      default:
        return this.refuse(req, METHOD_NOT_ALLOWED);
    }
  }

  /** @internal */
  protected handleGet(req: HttpRequestLike, _options: HttpHandleOptions): Promise<Response> | Response {
    return this.refuse(req, METHOD_NOT_ALLOWED);
  }

  /** @internal */
  protected handleDelete(req: HttpRequestLike, _options: HttpHandleOptions): Promise<Response> | Response {
    return this.refuse(req, METHOD_NOT_ALLOWED);
  }

  /**
   * Checks the reply and body wires, reads the messages, classifies the body's era against the headers
   * (SEP-2243: body first, headers cross-checked), then serves it on its path.
   */
  private async handlePost(req: HttpRequestLike, options: HttpHandleOptions, requestEra: RequestEra): Promise<Response> {
    try {
      const wires = postWires(req.headers);
      if (isRefusal(wires)) return this.refuse(req, wires);
      const extra: RequestExtra = { authInfo: options.authInfo, requestInfo: requestInfoOf(req), request: req };
      const body = await readPostMessages(req, this.codecs[wires.body], options.parsedBody, this.maxBodyBytes);
      if (isRefusal(body)) return this.refuse(req, body);
      if (this.closed) return this.refuse(req, SESSION_GONE);
      const era = classifyEra(requestEra, req.headers, body.raw, this.modern?.revisions ?? NO_REVISIONS);
      if (era.kind === 'refuse') return this.refuse(req, { ...era.refusal, id: idOf(body.raw) });
      // classifyEra calls a body modern only for a revision the path serves, so there is one.
      if (era.kind === 'modern') return await this.serveModern(this.modern!, req, body, wires, extra);
      return await this.serveSessionEra(req, body, wires, extra);
    } catch (error) {
      // Bad input was refused above; what throws here failed on the server's side (the event store, the server's own code).
      this.report(error as Error);
      return this.refuse(req, serverFailure(error));
    }
  }

  /** A body of the 2025-11-25 era (initialize, session requests, batches): the session path's business. */
  /** @internal */
  protected abstract serveSessionEra(req: HttpRequestLike, body: PostMessages, wires: PostWires, extra: RequestExtra): Promise<Response>;

  /** A 2026-07-28 body: no session; the path admits it, an endpoint may serve `subscriptions/listen` itself. */
  private async serveModern(path: ModernPath, req: HttpRequestLike, body: PostMessages, wires: PostWires, extra: RequestExtra): Promise<Response> {
    const refused = await path.admit(req, body.messages, extra);
    if (refused) return this.refuse(req, { ...refused, id: idOf(body.raw) });
    if (this.closed) return this.refuse(req, SESSION_GONE);
    const listen = body.messages.length === 1 ? listenRequestOf(body.messages[0]!) : undefined;
    const listening = listen && path.listen(listen, this.formats[wires.reply], req.signal);
    if (listening !== undefined) {
      if (!(listening instanceof EventStream)) return singleResponse(this.replyCodec(wires), this.sessionId, listening);
      listening.startKeepAlive(this.keepAliveMs);
      return streamResponse(listening, this.sessionId);
    }
    return this.answer(req, body.messages, wires, extra);
  }

  /**
   * Notifications alone get 202; requests get one body (enableJsonResponse) or a stream of their own,
   * resumable when `replay` is given; one request alone is held until its first message says which
   * (replyStreams 'when-needed').
   */
  /** @internal */
  protected answer(req: HttpRequestLike, messages: JSONRPCMessage[], wires: PostWires, extra: RequestExtra, replay?: StreamReplay): Promise<Response> | Response {
    if (!messages.some(isRequest)) return this.acceptNotifications(messages, extra);
    if (this.options.enableJsonResponse) return this.replyInOneBody(messages, this.replyCodec(wires), extra);
    if (this.holdsReplies && messages.length === 1) return this.replyHeld(req, messages, wires, extra, replay);
    return this.replyOnStream(req, messages, wires.reply, extra, replay);
  }

  /** Notifications and responses only: handed over, answered 202 at once. */
  private acceptNotifications(messages: JSONRPCMessage[], extra: RequestExtra): Response {
    for (const message of messages) this.onmessage?.(message, { ...extra });
    return respond(202, null, {});
  }

  /** enableJsonResponse: the replies to every request of the POST, as one body once all are in. */
  private replyInOneBody(messages: JSONRPCMessage[], single: ReplyCodec, extra: RequestExtra): Promise<Response> {
    const streamId = crypto.randomUUID();
    return new Promise<Response>((resolve) => {
      this.table.openSingle(streamId, single, resolve);
      this.table.bind(messages, streamId);
      for (const message of messages) this.onmessage?.(message, { ...extra });
    });
  }

  /**
   * The codec of a one-body reply: the POST's reply wire, or, for a client that reads both (SPEC.md 9.6),
   * the encoding the `encoding` policy picks for that body. Streams keep the wire they open with.
   */
  private replyCodec(wires: PostWires): ReplyCodec {
    if (!wires.perMessage) return this.codecs[wires.reply];
    const policy = this.options.encoding ?? 'cheapest-cpu';
    this.needsMsgpack ??= adapterNeedsMsgpack(this.codecs.msgpack.adapter);
    const needsMsgpack = this.needsMsgpack;
    return { choose: (body) => this.codecs[chooseWire(body, policy, runtime.encodingBreakEven, needsMsgpack)], signalJson: wires.signalJsonReply };
  }

  /**
   * One request's reply, held (SPEC.md 9.6.2): one body, chosen as single bodies are, when its final
   * response is the first message for it; otherwise (another message first, the hold interval passed, the
   * server ending it) the stream replyOnStream would have opened, primed when resumable, with the held
   * messages first. A client that leaves meanwhile ends the hold with nothing written or stored.
   */
  private replyHeld(req: HttpRequestLike, messages: JSONRPCMessage[], wires: PostWires, extra: RequestExtra, replay: StreamReplay | undefined): Promise<Response> {
    const streamId = crypto.randomUUID();
    return new Promise<Response>((resolve, reject) => {
      const openStream = async () => {
        const stream = this.table.unlisted(streamId, this.formats[wires.reply], req.signal);
        try {
          if (replay && !this.closed) await replay.prime(stream, streamId, messages);
        } catch (error) {
          stream.close();
          this.table.abandon(streamId, messages);
          this.report(error as Error);
          return resolve(this.refuse(req, serverFailure(error)));
        }
        if (!this.table.install(streamId, held, stream)) return stream.close();
        stream.startKeepAlive(this.keepAliveMs);
        resolve(streamResponse(stream, this.sessionId));
      };
      const gone = () => {
        // Nobody reads this answer: the client's connection is closed.
        if (this.table.dropHeld(streamId, held)) resolve(respond(202, null, {}));
      };
      const held = new HeldReply(openStream, holdInterval(this.keepAliveMs), req.signal, gone);
      this.table.hold(streamId, held, this.replyCodec(wires), resolve);
      this.table.bind(messages, streamId);
      try {
        for (const message of messages) this.onmessage?.(message, replay ? replay.extraFor(message, extra) : { ...extra });
      } catch (error) {
        this.table.abandon(streamId, messages);
        reject(error);
      }
    });
  }

  /** The replies on a stream of their own, primed first when the client may resume it from the event store. */
  private async replyOnStream(req: HttpRequestLike, messages: JSONRPCMessage[], replyWire: WireKind, extra: RequestExtra, replay: StreamReplay | undefined): Promise<Response> {
    const streamId = crypto.randomUUID();
    const stream = this.table.open(streamId, this.formats[replyWire], req.signal);
    this.table.bind(messages, streamId);
    try {
      if (replay) await replay.prime(stream, streamId, messages);
      for (const message of messages) this.onmessage?.(message, replay ? replay.extraFor(message, extra) : { ...extra });
    } catch (error) {
      this.table.abandon(streamId, messages);
      throw error;
    }
    if (this.table.isOpen(streamId, stream)) stream.startKeepAlive(this.keepAliveMs);
    return streamResponse(stream, this.sessionId);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.modern?.close();
    this.table.closeAll();
    this.onclose?.();
  }

  /** Ends the reply stream of one request; the client may resume it from the event store. */
  closeSSEStream(requestId: RequestId): void {
    this.table.closeRequestStream(requestId);
  }

  closeStandaloneSSEStream(): void {
    this.table.close(this.table.standaloneId);
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.modern?.keeps(message)) return Promise.resolve();
    return this.table.route(message, options);
  }

  /** Answers a refused request, reporting it first unless it is quiet (the SDK reports every refused request through onerror). */
  /** @internal */
  protected refuse(req: HttpRequestLike, refusal: Refusal): Response {
    if (!refusal.quiet) this.onerror?.(new Error(refusal.message));
    return refusalResponse(req, refusal, this.codecs);
  }
}
