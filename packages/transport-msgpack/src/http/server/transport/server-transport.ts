import { duplicateIdError } from '../../../jsonrpc/in-flight-ids.js';
import { isCancelledNotification, isInitializeRequest, isJSONRPCRequest, type InitializeRequest } from '../../../jsonrpc/kinds.js';
import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION } from '../../../mcp/protocol-versions.js';
import type { EventStore, JSONRPCMessage, JSONRPCRequest, MessageExtraInfo, RequestId, Transport, TransportSendOptions } from '../../../mcp/types.js';
import type { MessageAdapter, WireKind } from '../../../codec/message-codec.js';
import { adapterNeedsMsgpack, chooseWire } from '../../../codec/encoding-policy.js';
import { runtime } from '../../../runtime/current.js';
import { createWireCodecs, type TypedWireCodecs } from '../../../codec/wire-codecs.js';
import { adapterFromOption } from '../../../native-bytes/adapter.js';
import { SUPPORTED_MODERN_PROTOCOL_VERSIONS } from '../../../jsonrpc/envelope.js';
import { getStreamWire } from '../../media.js';
import { DEFAULT_MAX_REQUEST_BODY_BYTES, resolveReceiveLimits } from '../../../wire/receive-limits.js';
import { createEventFormats, type EventFormats } from '../streams/event-format.js';
import { primeStream, resumeStream } from './event-replay.js';
import { DEFAULT_KEEP_ALIVE_MS, EventStream } from '../streams/event-stream.js';
import { checkHostAndOrigin } from '../exchange/host-check.js';
import { classifyEra } from '../revision-2026-07-28/modern-check.js';
import { requestEra, type RequestEra } from '../revision-2026-07-28/request-era.js';
import type { ModernEndpoint } from '../revision-2026-07-28/modern-endpoint.js';
import { idOf, listenRequestOf, postWires, readPostMessages, requestInfoOf, type PostMessages, type PostWires } from './post-messages.js';
import { SESSION_GONE, isRefusal, refusalResponse, respond, serverFailure, singleResponse, streamResponse, type Refusal, type ReplyCodec } from '../exchange/responses.js';
import type { HttpHandleOptions, HttpMsgpackServerOptions, HttpRequestLike } from '../exchange/server-options.js';
import { protocolVersionProblem, sessionProblem } from './session-checks.js';
import { SessionReadiness } from './session-readiness.js';
import { StreamTable } from './stream-table.js';
import { ToolHeaderCatalog } from '../revision-2026-07-28/tool-headers.js';
import { INVALID_REQUEST, TRANSPORT_ERROR } from '../../../jsonrpc/error-codes.js';

export type { EventStore };
export type { HttpHandleOptions, HttpMsgpackServerOptions, HttpRequestLike } from '../exchange/server-options.js';

/** What every message of one POST is handed to the server with. */
type RequestExtra = Pick<MessageExtraInfo, 'authInfo' | 'requestInfo' | 'request'>;

/** A POST let in: on the stateless 2026-07-28 path, or on the session path (with its initialize, if it is one). */
type Admission = { modern: true; initialize?: undefined } | { modern: false; initialize: InitializeRequest | undefined };

const NOT_ACCEPTABLE_GET: Refusal = { status: 406, code: TRANSPORT_ERROR, message: 'Not Acceptable: Client must accept text/event-stream' };
const METHOD_NOT_ALLOWED: Refusal = { status: 405, code: TRANSPORT_ERROR, message: 'Method not allowed.', headers: { Allow: 'GET, POST, DELETE' } };

/**
 * Streamable HTTP server transport on the web standard (Request in, Response out: Bun.serve, Deno, Hono,
 * any fetch handler), speaking MessagePack to clients that ask for it and exactly the SDK's JSON to the
 * rest, at the same URL. Like the SDK's, one instance is one session (or one request, in stateless mode).
 */
export class WebHttpMsgpackServerTransport implements Transport {
  sessionId?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  private readonly options: HttpMsgpackServerOptions;
  /** The endpoint that made this transport for 2026-07-28 requests, if one did (WebMcpHttpHandler). */
  private readonly endpoint: ModernEndpoint | undefined;
  /** The request body cap (`maxMessageBytes`). */
  private readonly maxBodyBytes: number;
  private readonly keepAliveMs: number;
  private readonly modernRevisions: readonly string[];
  private readonly codecs: TypedWireCodecs;
  /** Whether a body must go as MessagePack (native bytes), for the per-message policy; made on first use. */
  private needsMsgpack: ((body: unknown) => boolean) | undefined;
  private readonly formats: EventFormats;
  private readonly table: StreamTable;
  private readonly report = (error: Error) => this.onerror?.(error);
  private started = false;
  /** The server's own message handler, as connect() set it (wrappers added later do not see the listings). */
  private serverOnmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  private readonly toolHeaders = new ToolHeaderCatalog(() => this.serverOnmessage ?? this.onmessage);
  private handledOne = false;
  private initialized = false;
  private readonly readiness: SessionReadiness;

  constructor(options?: HttpMsgpackServerOptions);
  /** @internal Made by an endpoint that serves 2026-07-28 requests with it. */
  constructor(options: HttpMsgpackServerOptions, endpoint: ModernEndpoint);
  constructor(options: HttpMsgpackServerOptions = {}, endpoint?: ModernEndpoint) {
    this.options = options;
    this.endpoint = endpoint;
    this.readiness = new SessionReadiness(options.initializedWaitMs);
    const limits = resolveReceiveLimits(options, DEFAULT_MAX_REQUEST_BODY_BYTES);
    this.maxBodyBytes = limits.maxMessageBytes;
    this.keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    this.modernRevisions = options.modernRevisions ?? (options.sessionIdGenerator ? [] : SUPPORTED_MODERN_PROTOCOL_VERSIONS);
    // One adapter per transport, i.e. per session (or per request when stateless), shared by both wires.
    const adapter = options.adapterFactory?.() ?? adapterFromOption('server', options.nativeBytes, { stateless: !options.sessionIdGenerator });
    this.codecs = createWireCodecs({ adapter, maxDepth: limits.maxDepth, decodeBudget: limits.decodeBudget });
    this.formats = createEventFormats(this.codecs);
    const { eventStore, enableJsonResponse } = options;
    this.table = new StreamTable({ eventStore, enableJsonResponse, sessionId: () => this.sessionId, report: this.report });
  }

  /** This session's message adapter, as made by adapterFactory. */
  get adapter(): MessageAdapter {
    return this.codecs.msgpack.adapter;
  }

  /** @internal Requests handed to the server and not answered yet. */
  /** Whether the client has sent `notifications/initialized` (the handler closes sessions that never do). */
  get clientInitialized(): boolean {
    return this.readiness.clientInitialized;
  }

  get pendingRequestCount(): number {
    return this.table.pendingRequestCount;
  }

  /** @internal Streams currently open to clients (for leak checks). */
  get openStreamCount(): number {
    return this.table.openStreamCount;
  }

  private get closed(): boolean {
    return this.table.closed;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('Transport already started');
    this.started = true;
    this.serverOnmessage = this.onmessage;
  }

  handleRequest(req: HttpRequestLike, options?: HttpHandleOptions): Promise<Response>;
  /** @internal `era`: what the request's headers say, as the handler read them when it routed the request. */
  handleRequest(req: HttpRequestLike, options: HttpHandleOptions | undefined, era: RequestEra): Promise<Response>;
  async handleRequest(req: HttpRequestLike, options: HttpHandleOptions = {}, era?: RequestEra): Promise<Response> {
    if (this.closed) return this.refuse(req, SESSION_GONE);
    if (!this.options.sessionIdGenerator && this.handledOne && !this.endpoint?.sequential) {
      throw new Error('Stateless transport cannot be reused across requests. Create a new transport per request.');
    }
    this.handledOne = true;
    const refused = checkHostAndOrigin(this.options, req.headers.get('host'), req.headers.get('origin'), options.localAddress);
    if (refused) return this.refuse(req, { status: 403, code: TRANSPORT_ERROR, message: refused });
    switch (req.method) {
      case 'POST':
        return this.handlePost(req, options, era ?? requestEra(req.headers));
      case 'GET':
        return this.handleGet(req);
      case 'DELETE':
        return this.handleDelete(req);
      default:
        return this.refuse(req, METHOD_NOT_ALLOWED);
    }
  }

  /** Checks the reply and body wires, reads the messages, admits them, then answers them. */
  private async handlePost(req: HttpRequestLike, options: HttpHandleOptions, era: RequestEra): Promise<Response> {
    try {
      const wires = postWires(req.headers);
      if (isRefusal(wires)) return this.refuse(req, wires);
      const extra: RequestExtra = { authInfo: options.authInfo, requestInfo: requestInfoOf(req), request: req };
      const body = await readPostMessages(req, this.codecs[wires.body], options.parsedBody, this.maxBodyBytes);
      if (isRefusal(body)) return this.refuse(req, body);
      const admitted = await this.admit(req, era, body, extra);
      if (isRefusal(admitted)) return this.refuse(req, admitted);
      const taken = this.take(body.messages, admitted);
      if (taken) return this.refuse(req, taken);
      return await this.answer(req, body.messages, wires.reply, extra, admitted, this.replyCodec(wires));
    } catch (error) {
      // Bad input was refused above; what throws here failed on the server's side (the event store, the server's own code).
      this.report(error as Error);
      return this.refuse(req, serverFailure(error));
    }
  }

  /**
   * Body first, headers cross-checked (SEP-2243), before anything about sessions: a 2026-07-28 exchange
   * needs no session; initialize starts one; any other POST must belong to it.
   */
  private async admit(req: HttpRequestLike, requestEra: RequestEra, body: PostMessages, extra: RequestExtra): Promise<Admission | Refusal> {
    if (this.closed) return SESSION_GONE;
    const era = classifyEra(requestEra, req.headers, body.raw, this.modernRevisions);
    if (era.kind === 'refuse') return { ...era.refusal, id: idOf(body.raw) };
    const { messages } = body;
    if (era.kind === 'modern') {
      if (this.endpoint) for (const message of messages) this.endpoint.beforeServing(message);
      for (const message of messages) {
        // SEP-2243: a tools/call's Mcp-Param-* headers must agree with its arguments (tool-headers.ts).
        const refused = await this.toolHeaders.refusal(message, req.headers, { ...extra });
        if (refused) return { ...refused, id: idOf(body.raw) };
      }
      return this.closed ? SESSION_GONE : { modern: true };
    }
    const initialize = messages.find(isInitializeRequest) as InitializeRequest | undefined;
    const problem = initialize ? await this.startSession(messages) : (this.sessionRefusal(req) ?? (await this.readinessRefusal(messages)));
    // Checked after the awaits: a session may close meanwhile (a request waiting for the notification included).
    if (this.closed) return SESSION_GONE;
    if (problem) return problem;
    return { modern: false, initialize };
  }

  /**
   * The last step of admission, with no await between it and `answer` binding the requests to their reply:
   * two requests with one id that were let go together (both waiting for notifications/initialized) would
   * otherwise both pass the duplicate check before either is bound, and one would never be answered.
   * Cancellations come first: a batch may cancel a request and reuse its id.
   */
  private take(messages: JSONRPCMessage[], admitted: Admission): Refusal | undefined {
    if (admitted.modern) return undefined;
    for (const message of messages) if (isCancelledNotification(message)) this.table.cancel(message.params.requestId);
    const duplicate = admitted.initialize ? undefined : this.duplicateRefusal(messages);
    if (duplicate) return duplicate;
    // Marked here, not when answered: a batch may carry it with requests.
    this.readiness.noteMessages(messages);
    return undefined;
  }

  /** initialize: the session begins (one initialize per session, alone in its POST). */
  private async startSession(messages: JSONRPCMessage[]): Promise<Refusal | undefined> {
    if (this.initialized && this.sessionId !== undefined) return { status: 400, code: INVALID_REQUEST, message: 'Invalid Request: Server already initialized' };
    if (messages.length > 1) return { status: 400, code: INVALID_REQUEST, message: 'Invalid Request: Only one initialization request is allowed' };
    this.sessionId = this.options.sessionIdGenerator?.();
    this.initialized = true;
    if (this.sessionId && this.options.onsessioninitialized) await this.options.onsessioninitialized(this.sessionId);
    return undefined;
  }

  /** Notifications alone get 202; requests get one body (enableJsonResponse) or a stream of their own. */
  private answer(req: HttpRequestLike, messages: JSONRPCMessage[], replyWire: WireKind, extra: RequestExtra, admitted: Admission, single: ReplyCodec): Promise<Response> | Response {
    if (!messages.some(isJSONRPCRequest)) return this.acceptNotifications(messages, extra);
    const listen = admitted.modern && messages.length === 1 ? listenRequestOf(messages[0]!) : undefined;
    if (listen && this.endpoint) return this.serveListen(this.endpoint, req, listen, replyWire, single);
    if (this.options.enableJsonResponse) return this.replyInOneBody(messages, single, extra);
    const { initialize } = admitted;
    const protocolVersion = initialize ? initialize.params.protocolVersion : (req.headers.get('mcp-protocol-version') ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION);
    // A 2026-07-28 request is one exchange with no session to resume it in.
    const resumable = !admitted.modern && this.options.eventStore !== undefined && protocolVersion >= '2025-11-25';
    return this.replyOnStream(req, messages, replyWire, extra, resumable);
  }

  /** A request whose id is in flight in this session (SPEC.md 5.2): refused at once; the first goes on. */
  private duplicateRefusal(messages: JSONRPCMessage[]): Refusal | undefined {
    const id = this.table.inFlightId(messages);
    if (id === undefined) return undefined;
    return { status: 400, ...duplicateIdError(id, 'in this session'), id };
  }

  /** A request other than ping before the client's `notifications/initialized` (stateful sessions only). */
  private async readinessRefusal(messages: JSONRPCMessage[]): Promise<Refusal | undefined> {
    return this.options.sessionIdGenerator === undefined ? undefined : this.readiness.refusal(messages);
  }

  private sessionRefusal(req: HttpRequestLike): Refusal | undefined {
    const session = { stateful: this.options.sessionIdGenerator !== undefined, initialized: this.initialized, sessionId: this.sessionId };
    return sessionProblem(req.headers, session) ?? protocolVersionProblem(req.headers);
  }

  /** Notifications and responses only: handed over, answered 202 at once. */
  private acceptNotifications(messages: JSONRPCMessage[], extra: RequestExtra): Response {
    for (const message of messages) this.onmessage?.(message, { ...extra });
    return respond(202, null, {});
  }

  /** A 2026-07-28 `subscriptions/listen`: served by the endpoint, not by a server instance. */
  private serveListen(endpoint: ModernEndpoint, req: HttpRequestLike, listen: JSONRPCRequest, replyWire: WireKind, single: ReplyCodec): Response {
    const answer = endpoint.listen(listen, this.formats[replyWire], req.signal);
    if (!(answer instanceof EventStream)) return singleResponse(single, this.sessionId, answer);
    answer.startKeepAlive(this.keepAliveMs);
    return streamResponse(answer, this.sessionId);
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

  /** The replies on a stream of their own, primed first when the client may resume it from the event store. */
  private async replyOnStream(req: HttpRequestLike, messages: JSONRPCMessage[], replyWire: WireKind, extra: RequestExtra, resumable: boolean): Promise<Response> {
    const streamId = crypto.randomUUID();
    const stream = this.table.open(streamId, this.formats[replyWire], req.signal);
    this.table.bind(messages, streamId);
    try {
      if (resumable) await primeStream(this.table, this.options.eventStore!, stream, streamId, messages, this.options.retryInterval);
      for (const message of messages) this.onmessage?.(message, resumable ? this.resumableExtra(message, extra) : { ...extra });
    } catch (error) {
      this.table.abandon(streamId, messages);
      throw error;
    }
    if (this.table.isOpen(streamId, stream)) stream.startKeepAlive(this.keepAliveMs);
    return streamResponse(stream, this.sessionId);
  }

  /** A request on a resumable stream may end its stream (or the GET stream) for the client to resume. */
  private resumableExtra(message: JSONRPCMessage, extra: RequestExtra): MessageExtraInfo {
    if (!isJSONRPCRequest(message)) return { ...extra };
    const closeSSEStream = () => this.closeSSEStream(message.id);
    return { ...extra, closeSSEStream, closeStandaloneSSEStream: () => this.closeStandaloneSSEStream() };
  }

  /** The standalone GET stream, or (Last-Event-ID) a stream resumed from the event store. */
  private async handleGet(req: HttpRequestLike): Promise<Response> {
    const wire = getStreamWire(req.headers.get('accept'));
    if (!wire) return this.refuse(req, NOT_ACCEPTABLE_GET);
    const problem = this.sessionRefusal(req);
    if (problem) return this.refuse(req, problem);
    const lastEventId = req.headers.get('last-event-id');
    if (this.options.eventStore && lastEventId) return this.resume(req, this.options.eventStore, lastEventId, wire);
    const standaloneId = this.table.standaloneId;
    if (this.table.has(standaloneId)) return this.refuse(req, { status: 409, code: TRANSPORT_ERROR, message: 'Conflict: Only one SSE stream is allowed per session' });
    const stream = this.table.open(standaloneId, this.formats[wire], req.signal);
    for (const { message, eventId } of this.table.takeHeld()) this.table.write(stream, message, eventId);
    stream.startKeepAlive(this.keepAliveMs);
    return streamResponse(stream, this.sessionId);
  }

  private async resume(req: HttpRequestLike, store: EventStore, lastEventId: string, wire: WireKind): Promise<Response> {
    try {
      const resumed = await resumeStream(this.table, store, lastEventId, this.formats[wire], req.signal, this.report);
      if (isRefusal(resumed)) return this.refuse(req, resumed);
      resumed.startKeepAlive(this.keepAliveMs);
      return streamResponse(resumed, this.sessionId);
    } catch (error) {
      this.report(error as Error);
      return this.refuse(req, serverFailure(error));
    }
  }

  private async handleDelete(req: HttpRequestLike): Promise<Response> {
    const problem = this.sessionRefusal(req);
    if (problem) return this.refuse(req, problem);
    try {
      await this.options.onsessionclosed?.(this.sessionId);
      return respond(200, null, {});
    } finally {
      await this.close();
    }
  }

  async close(): Promise<void> {
    this.readiness.release();
    if (this.closed) return;
    this.toolHeaders.close();
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
    if (this.toolHeaders.take(message)) return Promise.resolve();
    return this.table.route(message, options);
  }

  /** Answers a refused request, reporting it first unless it is quiet (the SDK reports every refused request through onerror). */
  private refuse(req: HttpRequestLike, refusal: Refusal): Response {
    if (!refusal.quiet) this.onerror?.(new Error(refusal.message));
    return refusalResponse(req, refusal, this.codecs);
  }
}
