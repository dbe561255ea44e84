import { duplicateIdError } from '../../../jsonrpc/in-flight-ids.js';
import { isCancellation, isInitialize, isRequest, type InitializeRequest } from '../../../jsonrpc/kinds.js';
import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION } from '../../../mcp/protocol-versions.js';
import type { EventStore, JSONRPCMessage, MessageExtraInfo } from '../../../mcp/types.js';
import type { WireKind } from '../../../codec/message-codec.js';
import { INVALID_REQUEST, TRANSPORT_ERROR } from '../../../jsonrpc/error-codes.js';
import { MSGPACK_STREAM_MEDIA_TYPE, SSE_MEDIA_TYPE } from '../../media.js';
import { ExchangeTransport, type Admission, type ModernPath, type Outcome, type RequestExtra, type ServerDispatch, type StreamReplay } from '../exchange/exchange-transport.js';
import type { IncomingPost } from '../exchange/incoming-post.js';
import { protocolVersionProblem } from '../exchange/era.js';
import { SESSION_GONE, isRefusal, respond, serverFailure, streamResponse, type Refusal } from '../exchange/responses.js';
import type { AuthInfo } from '../../../mcp/types.js';
import { defaultSessionPrincipal } from '../exchange/principal.js';
import type { HttpHandleOptions, HttpMsgpackServerOptions, HttpRequestLike } from '../exchange/server-options.js';
import { primeStream, resumeStream } from './event-replay.js';
import { sessionProblem } from './session-checks.js';
import { SessionReadiness } from './session-readiness.js';

const NOT_ACCEPTABLE_GET: Refusal = { status: 406, code: TRANSPORT_ERROR, message: 'Not Acceptable: Client must accept text/event-stream' };

/**
 * The 2025-11-25 session path (SDK v2's streamableHttp.ts): initialize starts a session, later requests
 * must name it, the GET stream, resumption from the event store, DELETE. With no sessionIdGenerator, the
 * same without sessions: one transport per request.
 */
export class SessionTransport extends ExchangeTransport {
  private initialized = false;
  /** Who initialized the session (SessionPrincipal): every later request must be made by the same. */
  private principal: string | undefined;
  private readonly readiness: SessionReadiness;
  /** How a resumable reply stream is primed and what its messages carry (only with an event store). */
  private readonly replay: StreamReplay | undefined;

  /** @internal Made by a subclass, with the modern path it serves, if any. */
  constructor(options: HttpMsgpackServerOptions = {}, modern?: (dispatch: () => ServerDispatch | undefined) => ModernPath) {
    super(options, modern);
    this.readiness = new SessionReadiness(options.initializedWaitMs);
    const store = options.eventStore;
    this.replay = store && {
      prime: (stream, streamId, messages) => primeStream(this.table, store, stream, streamId, messages, options.retryInterval),
      extraFor: (message, extra) => this.resumableExtra(message, extra),
    };
  }

  /** Whether the client has sent `notifications/initialized` (the handler closes sessions that never do). */
  get clientInitialized(): boolean {
    return this.readiness.clientInitialized;
  }

  /**
   * @internal Admits the POST: initialize starts a session; any other POST must belong to it (and wait,
   * briefly, for the client's `notifications/initialized`). Its reply is resumable from 2025-11-25 on.
   */
  protected async admitSessionEra(req: HttpRequestLike, post: IncomingPost): Promise<Admission | Refusal> {
    const { messages, extra } = post;
    const initialize = messages.find(isInitialize);
    const problem = initialize ? await this.startSession(messages, extra.authInfo) : (this.sessionRefusal(req, extra.authInfo) ?? (await this.readinessRefusal(messages)));
    // Checked after the awaits: a session may close meanwhile (a request waiting for the notification included).
    if (this.closed) return SESSION_GONE;
    if (problem) return problem;
    const protocolVersion = initialize ? initialize.params.protocolVersion : (req.headers.get('mcp-protocol-version') ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION);
    const resumable = protocolVersion >= '2025-11-25';
    return { replay: resumable ? this.replay : undefined, enroll: () => this.enroll(messages, initialize) };
  }

  /**
   * The last step of admission, run by the reply as it binds the requests to it (Admission.enroll):
   * two requests with one id that were let go together (both waiting for notifications/initialized) would
   * otherwise both pass the duplicate check before either is bound, and one would never be answered.
   * Cancellations come first: a batch may cancel a request and reuse its id.
   */
  private enroll(messages: JSONRPCMessage[], initialize: InitializeRequest | undefined): Refusal | undefined {
    for (const message of messages) if (isCancellation(message)) this.table.cancel(message.params.requestId);
    const duplicate = initialize ? undefined : this.duplicateRefusal(messages);
    if (duplicate) return duplicate;
    // Marked here, not when answered: a batch may carry it with requests.
    this.readiness.noteMessages(messages);
    return undefined;
  }

  /** initialize: the session begins (one initialize per session, alone in its POST). */
  private async startSession(messages: JSONRPCMessage[], authInfo: AuthInfo | undefined): Promise<Refusal | undefined> {
    if (this.initialized && this.sessionId !== undefined) return { status: 400, code: INVALID_REQUEST, message: 'Invalid Request: Server already initialized' };
    if (messages.length > 1) return { status: 400, code: INVALID_REQUEST, message: 'Invalid Request: Only one initialization request is allowed' };
    this.sessionId = this.options.sessionIdGenerator?.();
    this.principal = this.principalOf(authInfo);
    this.initialized = true;
    if (this.sessionId && this.options.onsessioninitialized) await this.options.onsessioninitialized(this.sessionId);
    return undefined;
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

  private sessionRefusal(req: HttpRequestLike, authInfo: AuthInfo | undefined): Refusal | undefined {
    const session = { stateful: this.options.sessionIdGenerator !== undefined, initialized: this.initialized, sessionId: this.sessionId };
    const problem = sessionProblem(req.headers, session);
    if (problem) return problem;
    // Answered as an unknown session is: a stranger holding the id learns nothing, not even that it lives.
    if (session.stateful && !this.madeBy(authInfo)) return SESSION_GONE;
    return protocolVersionProblem(req.headers);
  }

  /**
   * @internal Whether a request with this auth info may use the session: made by the principal that
   * initialized it (the handler asks before reading a body; the transport asks again for its own users).
   */
  madeBy(authInfo: AuthInfo | undefined): boolean {
    return !this.initialized || this.principalOf(authInfo) === this.principal;
  }

  private principalOf(authInfo: AuthInfo | undefined): string | undefined {
    const principal = this.options.sessionPrincipal;
    return principal === false ? undefined : (principal ?? defaultSessionPrincipal)(authInfo);
  }

  /** A request on a resumable stream may end its stream (or the GET stream) for the client to resume. */
  private resumableExtra(message: JSONRPCMessage, extra: RequestExtra): MessageExtraInfo {
    if (!isRequest(message)) return { ...extra };
    const closeSSEStream = () => this.closeSSEStream(message.id);
    return { ...extra, closeSSEStream, closeStandaloneSSEStream: () => this.closeStandaloneSSEStream() };
  }

  /** @internal The standalone GET stream, or (Last-Event-ID) a stream resumed from the event store. */
  protected override async handleGet(req: HttpRequestLike, options: HttpHandleOptions): Promise<Outcome> {
    const encoding = streamEncodingOf(req.headers.get('accept'));
    if (!encoding) return NOT_ACCEPTABLE_GET;
    const problem = this.sessionRefusal(req, options.authInfo);
    if (problem) return problem;
    const lastEventId = req.headers.get('last-event-id');
    if (this.options.eventStore && lastEventId) return this.resume(req, this.options.eventStore, lastEventId, encoding);
    const standaloneId = this.table.standaloneId;
    if (this.table.has(standaloneId)) return { status: 409, code: TRANSPORT_ERROR, message: 'Conflict: Only one SSE stream is allowed per session' };
    const stream = this.table.open(standaloneId, this.formats[encoding], req.signal);
    for (const { message, eventId } of this.table.takeHeld()) this.table.write(stream, message, eventId);
    stream.startKeepAlive(this.keepAliveMs);
    return streamResponse(stream, this.sessionId);
  }

  private async resume(req: HttpRequestLike, store: EventStore, lastEventId: string, encoding: WireKind): Promise<Outcome> {
    try {
      const resumed = await resumeStream(this.table, store, lastEventId, this.formats[encoding], req.signal, this.report);
      if (isRefusal(resumed)) return resumed;
      resumed.startKeepAlive(this.keepAliveMs);
      return streamResponse(resumed, this.sessionId);
    } catch (error) {
      this.report(error as Error);
      return serverFailure(error);
    }
  }

  /** @internal */
  protected override async handleDelete(req: HttpRequestLike, options: HttpHandleOptions): Promise<Outcome> {
    const problem = this.sessionRefusal(req, options.authInfo);
    if (problem) return problem;
    try {
      await this.options.onsessionclosed?.(this.sessionId);
      return respond(200, null, {});
    } finally {
      await this.close();
    }
  }

  override async close(): Promise<void> {
    this.readiness.release();
    await super.close();
  }
}

/** The encoding of a GET stream from its Accept, or undefined (406). */
function streamEncodingOf(header: string | null): WireKind | undefined {
  const accept = header?.toLowerCase(); // media type names are case-insensitive (SPEC.md 9.1)
  if (accept?.includes(MSGPACK_STREAM_MEDIA_TYPE)) return 'msgpack';
  if (accept?.includes(SSE_MEDIA_TYPE)) return 'json';
  return undefined;
}
