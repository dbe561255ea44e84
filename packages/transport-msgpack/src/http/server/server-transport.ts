import { bytesResponse, textResponse } from './response-bytes.js';
import { isInitializeRequest, isJSONRPCErrorResponse, isJSONRPCRequest, isJSONRPCResultResponse, type InitializeRequest } from '../../jsonrpc/kinds.js';
import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '../../mcp/protocol-versions.js';
import type { AuthInfo, EventStore, JSONRPCMessage, JSONRPCRequest, MessageExtraInfo, RequestId, Transport, TransportSendOptions } from '../../mcp/types.js';
import type { MessageAdapter, WireKind } from '../../codec/message-codec.js';
import { JsonMessageCodec } from '../../codec/json-codec.js';
import { MsgpackMessageCodec } from '../../codec/msgpack-codec.js';
import { validated } from '../../codec/validate.js';
import { adapterFromOption, type NativeBytesOptions } from '../../native-bytes/adapter.js';
import { PayloadError } from '../../wire/errors.js';
import { MAX_BATCH_SIZE, readBody, resolveMaxBodyBytes, type BodyChunks } from './body.js';
import { DEFAULT_KEEP_ALIVE_MS, EventStream } from './event-stream.js';
import { checkHostAndOrigin, type HostCheckOptions } from './host-check.js';
import { canFollow, type SharedEventStore } from './shared-event-store.js';
import { JSON_MEDIA_TYPE, MSGPACK_MEDIA_TYPE, bodyWire, getStreamWire, postResponseWire, prefersMsgpack } from '../media.js';
import type { DecodeBudget } from '../../wire/constants.js';
import { classifyEra } from './modern-check.js';
import { SUPPORTED_MODERN_PROTOCOL_VERSIONS } from '../../jsonrpc/envelope.js';

export type { EventStore };

/** The parts of a request the transport reads: a web Request, or the node adapter's light stand-in. */
export interface HttpRequestLike {
  readonly method: string;
  readonly url: string;
  readonly headers: { get(name: string): string | null; entries(): IterableIterator<[string, string]> };
  readonly body: BodyChunks | null;
  /** Fires when the client goes away, where the server provides one (web Request.signal). */
  readonly signal?: AbortSignal;
}

export interface HttpHandleOptions {
  authInfo?: AuthInfo;
  /** A body already parsed as JSON by a framework (express.json()); used for JSON bodies only. */
  parsedBody?: unknown;
  /** The local address the request arrived on; loopback turns DNS-rebinding checks on by default. */
  localAddress?: string;
}

export interface HttpMsgpackServerOptions extends HostCheckOptions {
  /** Makes a session id (stateful mode); leave undefined for stateless mode, one transport per request. */
  sessionIdGenerator?: (() => string) | undefined;
  onsessioninitialized?: (sessionId: string) => void | Promise<void>;
  onsessionclosed?: (sessionId: string | undefined) => void | Promise<void>;
  /** Reply with one body (application/json or application/msgpack) instead of a stream. */
  enableJsonResponse?: boolean;
  /** Stores sent events so a client can resume a cut stream (Last-Event-ID), on both wires. */
  eventStore?: EventStore;
  /** Sent to clients as the reconnection delay with the priming event. */
  retryInterval?: number;
  /** Interval between keep-alives on open streams; 0 turns them off. Default 15 s. */
  keepAliveMs?: number;
  /** Largest request body (one message, or one batch) accepted, in bytes, on either wire (413 above it). Default 4 MiB. */
  maxMessageBytes?: number;
  /** @deprecated The old name of `maxMessageBytes` (which wins when both are given). */
  maxRequestBodySize?: number;
  /** Deepest nesting accepted in a received MessagePack message. Default 128. */
  maxDepth?: number;
  /** The decode budget for received MessagePack messages (SPEC.md 4.1.9): arrays and maps, and distinct short
   * keys, per payload byte. Default DEFAULT_DECODE_BUDGET (65,536 plus one per 8 bytes; per 32 for keys). */
  decodeBudget?: Partial<DecodeBudget>;
  /** Makes this session's message adapter (the native-bytes extension plugs in here). */
  adapterFactory?: () => MessageAdapter;
  /**
   * The native-bytes extension (SPEC.md section 8): confirm it per session to msgpack clients that offer
   * it in initialize (never in stateless mode), and per request on 2026-07-28 (stateless too). Default: not negotiated, but placeholders from nativeImage() & co. are
   * still sent as base64; false: no adapter at all. Ignored when adapterFactory is given.
   */
  nativeBytes?: boolean | NativeBytesOptions;
  /**
   * The 2026-07-28-era revisions served (stateless, no initialize, SPEC.md section 9.5). Default: every
   * one this package knows on a stateless transport, none on a session transport (whose clients then get
   * -32022 "unsupported protocol version" and fall back to 2025-11-25). The server connected to the
   * transport must serve them too: McpHttpHandler arranges that for SDK v2 servers.
   */
  modernRevisions?: readonly string[];
  /**
   * @internal Without sessions, serve one request after another (never two at once) instead of exactly
   * one: McpHttpHandler keeps such transports, connected to their server, between 2026-07-28 requests.
   */
  sequential?: boolean;
  /** @internal Called with each 2026-07-28-era message before it is handed to the server. */
  onmodernmessage?: (message: JSONRPCMessage) => void;
  /**
   * @internal Serves a 2026-07-28 `subscriptions/listen` request at the endpoint (no server instance
   * outlives a request): a stream to hold open, or the error that answers it.
   */
  listen?: (request: JSONRPCRequest, codec: MsgpackMessageCodec | JsonMessageCodec, signal?: AbortSignal) => EventStream | JSONRPCMessage;
}

const STANDALONE_STREAM = '_GET_stream';
/**
 * Messages for the GET stream held while none is open. A client opens it only after its `initialized`
 * notification was answered, so a server that sends a request at that moment (roots/list, say) would
 * otherwise lose it; the SDK's transport drops such messages.
 */
const MAX_HELD_FOR_GET_STREAM = 100;

interface StreamEntry {
  stream?: EventStream;
  resolveSingle?: (response: Response) => void;
  wire: WireKind;
  cleanup(): void;
}

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
  private readonly maxBodyBytes: number;
  private readonly keepAliveMs: number;
  private readonly msgpack: MsgpackMessageCodec;
  private readonly json: JsonMessageCodec;
  private readonly streams = new Map<string, StreamEntry>();
  private readonly requestToStream = new Map<RequestId, string>();
  private readonly responses = new Map<RequestId, JSONRPCMessage>();
  private readonly resumable = new Set<string>();
  private heldForGetStream: { message: JSONRPCMessage; eventId?: string }[] = [];
  /** Whether the GET stream has events in the store (a shared store is told when it ends). */
  private storedStandalone = false;
  private started = false;
  private handledOne = false;
  private initialized = false;
  private closed = false;

  constructor(options: HttpMsgpackServerOptions = {}) {
    this.options = options;
    this.maxBodyBytes = resolveMaxBodyBytes(options.maxMessageBytes ?? options.maxRequestBodySize);
    this.keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    // One adapter per transport, i.e. per session (or per request when stateless), shared by both wires.
    const adapter = options.adapterFactory?.() ?? adapterFromOption('server', options.nativeBytes, { stateless: !options.sessionIdGenerator });
    this.msgpack = new MsgpackMessageCodec({ adapter, maxDepth: options.maxDepth, decodeBudget: options.decodeBudget });
    this.json = new JsonMessageCodec({ adapter });
  }

  /** This session's message adapter, as made by adapterFactory. */
  get adapter(): MessageAdapter {
    return this.msgpack.adapter;
  }

  /**
   * The GET stream's id in the event store: one per session, as a store may be shared by every session
   * (and every instance).
   */
  private get standaloneStreamId(): string {
    return this.sessionId === undefined ? STANDALONE_STREAM : `${STANDALONE_STREAM}:${this.sessionId}`;
  }

  /** @internal Requests handed to the server and not answered yet. */
  get pendingRequestCount(): number {
    return this.requestToStream.size;
  }

  /** @internal Streams currently open to clients (for leak checks). */
  get openStreamCount(): number {
    let count = 0;
    for (const entry of this.streams.values()) if (entry.stream && !entry.stream.closed) count++;
    return count;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('Transport already started');
    this.started = true;
  }

  async handleRequest(req: HttpRequestLike, options: HttpHandleOptions = {}): Promise<Response> {
    if (this.closed) return this.errorResponse(req, 404, -32001, 'Session not found');
    if (!this.options.sessionIdGenerator && this.handledOne && !this.options.sequential) {
      throw new Error('Stateless transport cannot be reused across requests. Create a new transport per request.');
    }
    this.handledOne = true;
    const refused = checkHostAndOrigin(this.options, req.headers.get('host'), req.headers.get('origin'), options.localAddress);
    if (refused) {
      this.onerror?.(new Error(refused));
      return this.errorResponse(req, 403, -32000, refused);
    }
    switch (req.method) {
      case 'POST':
        return this.handlePost(req, options);
      case 'GET':
        return this.handleGet(req);
      case 'DELETE':
        return this.handleDelete(req);
      default: {
        this.onerror?.(new Error('Method not allowed.'));
        return this.errorResponse(req, 405, -32000, 'Method not allowed.', { Allow: 'GET, POST, DELETE' });
      }
    }
  }

  private async handlePost(req: HttpRequestLike, options: HttpHandleOptions): Promise<Response> {
    try {
      const accept = req.headers.get('accept');
      const replyWire = postResponseWire(accept);
      if (!replyWire) {
        return this.refuse(req, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
      }
      const inWire = bodyWire(req.headers.get('content-type'));
      if (!inWire) return this.refuse(req, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json or application/msgpack');

      const requestInfo = { headers: Object.fromEntries(req.headers.entries()), url: new URL(req.url, 'http://localhost') };
      let raw: unknown;
      if (inWire === 'json' && options.parsedBody !== undefined) {
        // Already parsed by a framework; it still passes the session's adapter like any JSON body.
        raw = this.json.adapter.fromWire(options.parsedBody, 'json', false);
      } else {
        const body = await readBody(req.headers.get('content-length'), req.body, this.maxBodyBytes);
        if (body.tooLarge) {
          const message = `Payload Too Large: Request body must not exceed ${this.maxBodyBytes} bytes`;
          return this.refuse(req, 413, -32000, message, { Connection: 'close' });
        }
        try {
          raw = inWire === 'json' ? this.json.decodeValue(body.bytes) : this.msgpack.decodeValue(body.bytes);
        } catch (error) {
          if (inWire === 'json') return this.refuse(req, 400, -32700, 'Parse error: Invalid JSON');
          return this.refuse(req, 400, -32700, `Parse error: ${(error as Error).message}`, undefined, reasonOf(error));
        }
      }
      if (Array.isArray(raw) && raw.length > MAX_BATCH_SIZE) {
        return this.refuse(req, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
      }
      let messages: JSONRPCMessage[];
      try {
        messages = Array.isArray(raw) ? raw.map(validated) : [validated(raw)];
      } catch (error) {
        if (inWire === 'json') return this.refuse(req, 400, -32700, 'Parse error: Invalid JSON-RPC message');
        return this.refuse(req, 400, -32700, `Parse error: ${(error as Error).message}`, undefined, reasonOf(error));
      }
      if (this.closed) return this.errorResponse(req, 404, -32001, 'Session not found');

      // Body first, headers cross-checked (SEP-2243), before anything about sessions.
      const era = classifyEra(req.headers, raw, this.options.modernRevisions ?? (this.options.sessionIdGenerator ? [] : SUPPORTED_MODERN_PROTOCOL_VERSIONS));
      if (era.kind === 'refuse') return this.refuse(req, era.status, era.code, era.message, undefined, era.data, idOf(raw));
      const modern = era.kind === 'modern';
      const initialize = modern ? undefined : (messages.find(isInitializeRequest) as InitializeRequest | undefined);
      if (modern) {
        for (const message of messages) this.options.onmodernmessage?.(message);
      } else if (initialize) {
        if (this.initialized && this.sessionId !== undefined) return this.refuse(req, 400, -32600, 'Invalid Request: Server already initialized');
        if (messages.length > 1) return this.refuse(req, 400, -32600, 'Invalid Request: Only one initialization request is allowed');
        this.sessionId = this.options.sessionIdGenerator?.();
        this.initialized = true;
        if (this.sessionId && this.options.onsessioninitialized) await this.options.onsessioninitialized(this.sessionId);
      } else {
        const problem = this.validateSession(req) ?? this.validateProtocolVersion(req);
        if (problem) return problem;
      }
      if (this.closed) return this.errorResponse(req, 404, -32001, 'Session not found');

      if (!messages.some(isJSONRPCRequest)) {
        for (const message of messages) this.onmessage?.(message, { authInfo: options.authInfo, requestInfo, request: req });
        return this.respond(202, null, {});
      }

      const listen = modern && messages.length === 1 && isJSONRPCRequest(messages[0]) && messages[0].method === 'subscriptions/listen' ? messages[0] : undefined;
      if (listen && this.options.listen) {
        const answer = this.options.listen(listen, replyWire === 'msgpack' ? this.msgpack : this.json, req.signal);
        if (!(answer instanceof EventStream)) return this.singleResponse(replyWire, answer);
        answer.startKeepAlive(this.keepAliveMs);
        return this.streamResponse(answer);
      }

      const streamId = crypto.randomUUID();
      const protocolVersion = initialize ? initialize.params.protocolVersion : (req.headers.get('mcp-protocol-version') ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION);
      const codec = replyWire === 'msgpack' ? this.msgpack : this.json;

      if (this.options.enableJsonResponse) {
        return await new Promise<Response>((resolve) => {
          this.streams.set(streamId, { resolveSingle: resolve, wire: replyWire, cleanup: () => this.streams.delete(streamId) });
          for (const message of messages) if (isJSONRPCRequest(message)) this.requestToStream.set(message.id, streamId);
          for (const message of messages) this.onmessage?.(message, { authInfo: options.authInfo, requestInfo, request: req });
        });
      }

      const stream = new EventStream(codec, (cancelled) => {
        if (this.streams.get(streamId)?.stream === cancelled) this.streams.delete(streamId);
      }, req.signal);
      this.streams.set(streamId, { stream, wire: replyWire, cleanup: () => this.endStream(streamId, stream) });
      for (const message of messages) if (isJSONRPCRequest(message)) this.requestToStream.set(message.id, streamId);
      // A 2026-07-28 request is one exchange with no session to resume it in.
      const resumable = !modern && this.options.eventStore !== undefined && protocolVersion >= '2025-11-25';
      try {
        if (resumable) await this.writePriming(stream, streamId, messages);
        for (const message of messages) {
          const extra: MessageExtraInfo = { authInfo: options.authInfo, requestInfo, request: req };
          if (isJSONRPCRequest(message) && resumable) {
            extra.closeSSEStream = () => this.closeSSEStream(message.id);
            extra.closeStandaloneSSEStream = () => this.closeStandaloneSSEStream();
          }
          this.onmessage?.(message, extra);
        }
      } catch (error) {
        this.streams.get(streamId)?.cleanup();
        this.resumable.delete(streamId);
        for (const message of messages) if (isJSONRPCRequest(message)) this.requestToStream.delete(message.id);
        throw error;
      }
      if (this.streams.get(streamId)?.stream === stream) stream.startKeepAlive(this.keepAliveMs);
      return this.streamResponse(stream);
    } catch (error) {
      this.onerror?.(error as Error);
      return this.errorResponse(req, 400, -32700, 'Parse error', undefined, String(error));
    }
  }

  private async handleGet(req: HttpRequestLike): Promise<Response> {
    const wire = getStreamWire(req.headers.get('accept'));
    if (!wire) return this.refuse(req, 406, -32000, 'Not Acceptable: Client must accept text/event-stream');
    const problem = this.validateSession(req) ?? this.validateProtocolVersion(req);
    if (problem) return problem;
    const codec = wire === 'msgpack' ? this.msgpack : this.json;
    const lastEventId = req.headers.get('last-event-id');
    if (this.options.eventStore && lastEventId) return this.replay(req, codec, lastEventId);
    const standaloneId = this.standaloneStreamId;
    if (this.streams.has(standaloneId)) {
      return this.refuse(req, 409, -32000, 'Conflict: Only one SSE stream is allowed per session');
    }
    const stream = new EventStream(codec, (cancelled) => {
      if (this.streams.get(standaloneId)?.stream === cancelled) this.streams.delete(standaloneId);
    }, req.signal);
    this.streams.set(standaloneId, { stream, wire, cleanup: () => this.endStream(standaloneId, stream) });
    const held = this.heldForGetStream;
    this.heldForGetStream = [];
    for (const { message, eventId } of held) this.writeEvent(stream, message, eventId);
    stream.startKeepAlive(this.keepAliveMs);
    return this.streamResponse(stream);
  }

  private async replay(req: HttpRequestLike, codec: MsgpackMessageCodec | JsonMessageCodec, lastEventId: string): Promise<Response> {
    const store = this.options.eventStore!;
    try {
      let known: string | undefined;
      if (store.getStreamIdForEventId) {
        known = await store.getStreamIdForEventId(lastEventId);
        if (!known) return this.refuse(req, 400, -32000, 'Invalid event ID format');
        if (this.streams.has(known)) return this.refuse(req, 409, -32000, 'Conflict: Stream already has an active connection');
      }
      let streamId: string | undefined;
      let cancelled = false;
      const following = new AbortController();
      const stream = new EventStream(codec, (gone) => {
        cancelled = true;
        following.abort();
        if (streamId !== undefined && this.streams.get(streamId)?.stream === gone) this.streams.delete(streamId);
      }, req.signal);
      const replayed = new Set<string>();
      stream.replayedEventIds = replayed;
      const send = async (eventId: string | undefined, message: JSONRPCMessage) => {
        if (this.writeEvent(stream, message, eventId)) {
          if (eventId !== undefined) replayed.add(eventId);
        } else {
          this.onerror?.(new Error('Failed replay events'));
          following.abort();
          stream.close();
        }
      };
      // A stream this transport does not produce (another instance does, or did) is followed in the store.
      if (canFollow(store) && known !== undefined && !this.producesStream(known)) {
        const followed = await store.followEventsAfter(lastEventId, { send, signal: following.signal });
        const id = (streamId = followed.streamId);
        const end = () => this.endStream(id, stream);
        followed.done.then(end, (error: unknown) => {
          this.onerror?.(error as Error);
          end();
        });
      } else {
        streamId = await store.replayEventsAfter(lastEventId, { send });
      }
      if (this.closed || cancelled) {
        following.abort();
        stream.close();
        return this.errorResponse(req, 404, -32001, 'Session not found');
      }
      const id = streamId;
      this.streams.get(id)?.cleanup();
      this.streams.set(id, { stream, wire: codec.wire, cleanup: () => this.endStream(id, stream) });
      this.resumable.add(id);
      stream.startKeepAlive(this.keepAliveMs);
      return this.streamResponse(stream);
    } catch (error) {
      this.onerror?.(error as Error);
      return this.errorResponse(req, 500, -32000, 'Error replaying events');
    }
  }

  /** Whether this transport stores the stream's events itself (and so sends new ones live). */
  private producesStream(streamId: string): boolean {
    if (streamId === this.standaloneStreamId) return true;
    for (const id of this.requestToStream.values()) if (id === streamId) return true;
    return false;
  }

  private async handleDelete(req: HttpRequestLike): Promise<Response> {
    const problem = this.validateSession(req) ?? this.validateProtocolVersion(req);
    if (problem) return problem;
    try {
      await this.options.onsessionclosed?.(this.sessionId);
      return this.respond(200, null, {});
    } finally {
      await this.close();
    }
  }

  private validateSession(req: HttpRequestLike): Response | undefined {
    if (this.options.sessionIdGenerator === undefined) return undefined;
    if (!this.initialized) return this.refuse(req, 400, -32000, 'Bad Request: Server not initialized');
    const sessionId = req.headers.get('mcp-session-id');
    if (!sessionId) return this.refuse(req, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    if (sessionId !== this.sessionId) return this.refuse(req, 404, -32001, 'Session not found');
    return undefined;
  }

  private validateProtocolVersion(req: HttpRequestLike): Response | undefined {
    const version = req.headers.get('mcp-protocol-version');
    if (version === null || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
    const message = `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`;
    return this.refuse(req, 400, -32000, message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.abandonStoredStreams();
    for (const entry of [...this.streams.values()]) entry.cleanup();
    this.streams.clear();
    this.responses.clear();
    this.resumable.clear();
    this.heldForGetStream = [];
    this.onclose?.();
  }

  /** Tells a shared store which of its streams will get no more events (their followers end them). */
  private abandonStoredStreams(): void {
    const store: SharedEventStore | undefined = this.options.eventStore;
    if (!store?.streamAbandoned) return;
    const unfinished = new Set(this.requestToStream.values());
    if (this.storedStandalone) unfinished.add(this.standaloneStreamId);
    for (const streamId of unfinished) {
      Promise.resolve(store.streamAbandoned(streamId)).catch((error: unknown) => this.onerror?.(error as Error));
    }
  }

  /** Ends the reply stream of one request; the client may resume it from the event store. */
  closeSSEStream(requestId: RequestId): void {
    const streamId = this.requestToStream.get(requestId);
    if (streamId) this.streams.get(streamId)?.cleanup();
  }

  closeStandaloneSSEStream(): void {
    this.streams.get(this.standaloneStreamId)?.cleanup();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const isResponse = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
    const requestId = isResponse ? message.id : options?.relatedRequestId;
    const store = this.options.eventStore;

    if (requestId === undefined) {
      if (isResponse) throw new Error('Cannot send a response on a standalone SSE stream unless resuming a previous client request');
      const eventId = store ? await store.storeEvent(this.standaloneStreamId, message) : undefined;
      if (eventId !== undefined) this.storedStandalone = true;
      const standalone = this.streams.get(this.standaloneStreamId)?.stream;
      if (!standalone) {
        if (this.closed) return;
        this.heldForGetStream.push({ message, eventId });
        if (this.heldForGetStream.length > MAX_HELD_FOR_GET_STREAM) {
          this.heldForGetStream.shift();
          this.onerror?.(new Error(`no GET stream open: dropped the oldest of ${MAX_HELD_FOR_GET_STREAM} held messages`));
        }
        return;
      }
      if (eventId === undefined || !standalone.replayedEventIds?.has(eventId)) this.writeEvent(standalone, message, eventId);
      return;
    }

    const streamId = this.requestToStream.get(requestId);
    if (!streamId) throw new Error(`No connection established for request ID: ${String(requestId)}`);
    let entry = this.streams.get(streamId);
    if (!this.options.enableJsonResponse) {
      let eventId: string | undefined;
      if (store) {
        eventId = await store.storeEvent(streamId, message);
        entry = this.streams.get(streamId);
      }
      const stream = entry?.stream;
      if (stream && (eventId === undefined || !stream.replayedEventIds?.has(eventId))) {
        if (this.writeEvent(stream, message, eventId) && eventId !== undefined) this.resumable.add(streamId);
      }
    }
    if (!isResponse) return;

    this.responses.set(requestId, message);
    const related = [...this.requestToStream].filter(([, id]) => id === streamId).map(([id]) => id);
    if (!related.every((id) => this.responses.has(id))) return;
    const replies = related.map((id) => this.responses.get(id)!);
    const forget = () => {
      for (const id of related) {
        this.responses.delete(id);
        this.requestToStream.delete(id);
      }
    };
    if (!entry) {
      forget();
      // Closed session, or a cut stream whose events wait in the store for the client to resume.
      if (this.closed) return;
      if (!this.options.enableJsonResponse && store && this.resumable.has(streamId)) {
        this.resumable.delete(streamId);
        return;
      }
      throw new Error(`No connection established for request ID: ${String(requestId)}`);
    }
    if (this.options.enableJsonResponse && entry.resolveSingle) {
      entry.resolveSingle(this.singleResponse(entry.wire, replies.length === 1 ? replies[0]! : replies));
      entry.cleanup();
    } else {
      entry.cleanup();
    }
    forget();
    this.resumable.delete(streamId);
  }

  private async writePriming(stream: EventStream, streamId: string, messages: JSONRPCMessage[]): Promise<void> {
    const store: SharedEventStore = this.options.eventStore!;
    // A shared store learns the requests first, to answer them should this instance die mid-stream.
    await store.streamOpened?.(streamId, messages.filter(isJSONRPCRequest).map((message) => message.id));
    const eventId = await store.storeEvent(streamId, {} as JSONRPCMessage);
    stream.prime(eventId, this.options.retryInterval);
    this.resumable.add(streamId);
  }

  private writeEvent(stream: EventStream, message: JSONRPCMessage, eventId?: string): boolean {
    try {
      return stream.send(message, eventId);
    } catch (error) {
      this.onerror?.(error as Error);
      return false;
    }
  }

  private endStream(streamId: string, stream: EventStream): void {
    if (this.streams.get(streamId)?.stream === stream) this.streams.delete(streamId);
    stream.close();
  }

  private singleResponse(wire: WireKind, body: JSONRPCMessage | JSONRPCMessage[]): Response {
    const headers = this.sessionHeaders();
    if (wire === 'msgpack') {
      headers['Content-Type'] = MSGPACK_MEDIA_TYPE;
      return this.respond(200, this.msgpack.encodeBodyPieces(body), headers);
    }
    headers['Content-Type'] = JSON_MEDIA_TYPE;
    return this.respond(200, this.json.encodeBody(body), headers);
  }

  private streamResponse(stream: EventStream): Response {
    return this.respond(200, stream.readable, {
      ...this.sessionHeaders(),
      'Content-Type': stream.contentType,
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
  }

  private sessionHeaders(): Record<string, string> {
    return this.sessionId !== undefined ? { 'mcp-session-id': this.sessionId } : {};
  }

  private respond(status: number, body: string | Uint8Array[] | ReadableStream<Uint8Array> | null, headers: Record<string, string>): Response {
    // Replies differ by Accept and Content-Type: caches must never hand one client's encoding to another.
    headers.Vary = 'Accept, Content-Type';
    // A body in memory leaves without the copies new Response(body) would make (see response-bytes.ts).
    if (typeof body === 'string') return textResponse(body, status, headers);
    if (Array.isArray(body)) return bytesResponse(body, status, headers);
    return new Response(body, { status, headers });
  }

  /** Reports the problem, then answers it (the SDK reports every refused request through onerror). */
  private refuse(req: HttpRequestLike, status: number, code: number, message: string, headers?: Record<string, string>, data?: unknown, id: RequestId | null = null): Response {
    this.onerror?.(new Error(message));
    return this.errorResponse(req, status, code, message, headers, data, id);
  }

  private errorResponse(req: HttpRequestLike, status: number, code: number, message: string, headers?: Record<string, string>, data?: unknown, id: RequestId | null = null): Response {
    return errorResponse(req, status, code, message, headers, data, this.msgpack, id);
  }
}

const ERROR_CODEC = new MsgpackMessageCodec();

/**
 * A JSON-RPC error (id null unless the request's id is known), in the encoding the client asked for. `jsonrpc` and `id` come first, as
 * SPEC.md 5.2 asks of every sender, so a reader can recover the id before the rest (the SDK's server puts
 * the id last; the members and values are the same).
 */
export function errorResponse(
  req: HttpRequestLike,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  data?: unknown,
  codec: MsgpackMessageCodec = ERROR_CODEC,
  id: RequestId | null = null,
): Response {
  const error = data === undefined ? { code, message } : { code, message, data };
  const value = { jsonrpc: '2.0', id, error } as unknown as JSONRPCMessage;
  const all: Record<string, string> = { ...headers, Vary: 'Accept, Content-Type' };
  if (prefersMsgpack(req.headers.get('accept'))) {
    all['Content-Type'] = MSGPACK_MEDIA_TYPE;
    return new Response(codec.encodeBody(value) as Uint8Array<ArrayBuffer>, { status, headers: all });
  }
  all['Content-Type'] = JSON_MEDIA_TYPE;
  return new Response(JSON.stringify(value), { status, headers: all });
}

/** The id of a refused request, echoed as the SDK does so the client's call ends with the error. */
function idOf(body: unknown): RequestId | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('method' in body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function reasonOf(error: unknown): unknown {
  return error instanceof PayloadError ? { reason: error.code } : undefined;
}
