import type { JSONRPCMessage, MessageExtraInfo, RequestId, Transport, TransportSendOptions } from '../../../mcp/types.js';
import type { MessageAdapter } from '../../../codec/message-codec.js';
import { createWireCodecs, type TypedWireCodecs } from '../../../codec/wire-codecs.js';
import { adapterFromOption } from '../../../native-bytes/adapter.js';
import { DEFAULT_MAX_REQUEST_BODY_BYTES, resolveReceiveLimits } from '../../../wire/receive-limits.js';
import { TRANSPORT_ERROR } from '../../../jsonrpc/error-codes.js';
import { createEventFormats, type EventFormats } from './event-format.js';
import { DEFAULT_KEEP_ALIVE_MS } from './event-stream.js';
import { hostRefusal } from './host-check.js';
import { requestEra, type RequestEra } from './era.js';
import { readIncomingPost, type IncomingPost, type PostReading } from './incoming-post.js';
import { PostReplies, type Admission } from './post-replies.js';
import { SESSION_GONE, isRefusal, refusalResponse, serverFailure, type Refusal } from './responses.js';
import type { HttpHandleOptions, HttpMsgpackServerOptions, HttpRequestLike } from './server-options.js';
import { StreamTable } from './stream-table.js';

export type { RequestExtra } from './incoming-post.js';
export type { Admission, StreamReplay } from './post-replies.js';

/** The server's own message handler, as connect() set it. */
export type ServerDispatch = (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

/** What a method's handler answers with: a Response, or the refusal the transport turns into one (ExchangeTransport.refuse). */
export type Outcome = Response | Refusal;

/**
 * What a transport does with a POST of a modern revision (2026-07-28 and later: no session, the client's
 * envelope in each request): per-request/ provides it.
 */
export interface ModernPath {
  /** The modern revisions served; a body claiming another is answered -32022. */
  readonly revisions: readonly string[];
  /** Serve one request after another on this transport (an endpoint keeps it between requests). */
  readonly sequential: boolean;
  /**
   * Lets the POST in (Mcp-Param-* agree with the arguments) and serves a `subscriptions/listen` the endpoint
   * answers itself (a stream in the reply's event format), or the refusal.
   */
  admit(req: HttpRequestLike, post: IncomingPost, formats: EventFormats): Promise<Admission | Refusal>;
  /**
   * Whether a message the server sends goes to no client: the path's own (the reply to a listing it asked
   * for), or, on a transport that serves only modern requests, one related to no request of the exchange.
   */
  keeps(message: JSONRPCMessage, options?: TransportSendOptions): boolean;
  close(): void;
}

const NO_REVISIONS: readonly string[] = [];
const METHOD_NOT_ALLOWED: Refusal = { status: 405, code: TRANSPORT_ERROR, message: 'Method not allowed.', headers: { Allow: 'GET, POST, DELETE' } };

/**
 * What either serving path does with one HTTP exchange: the Transport a server connects to, routing a
 * request by method, and a POST's pipeline: read and checked once (incoming-post.ts: encodings, messages,
 * era), admitted by its path (`admitSessionEra` for 2025-11-25 bodies, a ModernPath for 2026-07-28 ones),
 * answered (post-replies.ts). Every step returns a refusal as a value; `refuse` alone turns one into a
 * Response.
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
  /** @internal */
  protected readonly keepAliveMs: number;
  private readonly codecs: TypedWireCodecs;
  /** What reading a POST takes from this transport. */
  private readonly reading: PostReading;
  private readonly replies: PostReplies;
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
    this.keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    // One adapter per transport, i.e. per session (or per request when stateless), shared by both encodings.
    const adapter = options.adapterFactory?.() ?? adapterFromOption('server', options.nativeBytes, { stateless: !options.sessionIdGenerator });
    this.codecs = createWireCodecs({ adapter, maxDepth: limits.maxDepth, decodeBudget: limits.decodeBudget });
    this.formats = createEventFormats(this.codecs);
    const { eventStore, enableJsonResponse } = options;
    this.table = new StreamTable({ eventStore, enableJsonResponse, sessionId: () => this.sessionId, report: this.report });
    this.modern = modern?.(() => this.serverOnmessage ?? this.onmessage);
    this.reading = { codecs: this.codecs, maxBodyBytes: limits.maxMessageBytes, revisions: this.modern?.revisions ?? NO_REVISIONS, codings: options.requestCodings ?? [] };
    this.replies = new PostReplies({
      table: this.table,
      formats: this.formats,
      codecs: this.codecs,
      keepAliveMs: this.keepAliveMs,
      oneBody: enableJsonResponse === true,
      // With an event store every reply is resumable from its first byte unless the operator says otherwise.
      holds: (options.replyStreams ?? (eventStore ? 'always' : 'when-needed')) === 'when-needed',
      encoding: options.encoding,
      deliver: (message, extra) => this.onmessage?.(message, extra),
      sessionId: () => this.sessionId,
      closed: () => this.closed,
      report: this.report,
    });
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

  /** @internal Handles one request arriving on its own: Host/Origin checked, the era read, then served. */
  protected async handleWebRequest(req: HttpRequestLike, options: HttpHandleOptions = {}): Promise<Response> {
    const refused = hostRefusal(this.options, req.headers, options.localAddress);
    if (refused) return this.refuse(req, refused);
    return this.serveRouted(req, options, requestEra(req.headers));
  }

  /**
   * @internal A request an endpoint routed here: it checked Host/Origin and read the era from the headers
   * (WebMcpHttpHandler), so neither happens again.
   */
  async serveRouted(req: HttpRequestLike, options: HttpHandleOptions, era: RequestEra): Promise<Response> {
    const outcome = await this.serveMethod(req, options, era);
    return outcome instanceof Response ? outcome : this.refuse(req, outcome);
  }

  private serveMethod(req: HttpRequestLike, options: HttpHandleOptions, era: RequestEra): Promise<Outcome> | Outcome {
    if (this.closed) return SESSION_GONE;
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
        return METHOD_NOT_ALLOWED;
    }
  }

  /** @internal */
  protected handleGet(_req: HttpRequestLike, _options: HttpHandleOptions): Promise<Outcome> | Outcome {
    return METHOD_NOT_ALLOWED;
  }

  /** @internal */
  protected handleDelete(_req: HttpRequestLike, _options: HttpHandleOptions): Promise<Outcome> | Outcome {
    return METHOD_NOT_ALLOWED;
  }

  /**
   * A POST, in three steps: read and checked once (its era classified against the headers, SEP-2243: body
   * first, headers cross-checked), admitted by its path, answered.
   */
  private async handlePost(req: HttpRequestLike, options: HttpHandleOptions, requestEra: RequestEra): Promise<Outcome> {
    try {
      const post = await readIncomingPost(req, this.reading, options, requestEra);
      if (isRefusal(post)) return post;
      if (this.closed) return SESSION_GONE;
      // The body is modern only for a revision the path serves, so there is one.
      const admission = post.era === 'modern' ? await this.modern!.admit(req, post, this.formats) : await this.admitSessionEra(req, post);
      if (isRefusal(admission)) return admission;
      if (this.closed) return SESSION_GONE;
      return await this.replies.answer(req, post, admission);
    } catch (error) {
      // Bad input was refused above; what throws here failed on the server's side (the event store, the server's own code).
      this.report(error as Error);
      return serverFailure(error);
    }
  }

  /** @internal A body of the 2025-11-25 era (initialize, session requests, batches): the session path's business. */
  protected abstract admitSessionEra(req: HttpRequestLike, post: IncomingPost): Promise<Admission | Refusal>;

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
    if (this.modern?.keeps(message, options)) return Promise.resolve();
    return this.table.route(message, options);
  }

  /**
   * The one place a refusal becomes a Response: reported first unless it is quiet (the SDK reports every
   * refused request through onerror), in the encoding the client accepts.
   */
  private refuse(req: HttpRequestLike, refusal: Refusal): Response {
    if (!refusal.quiet) this.onerror?.(new Error(refusal.message));
    return refusalResponse(req, refusal, this.codecs);
  }
}
