import { isInitializedNotification, isJSONRPCRequest, isJSONRPCResultResponse } from '../../jsonrpc/kinds.js';
import type { FetchLike, JSONRPCMessage, OAuthClientProvider, RequestId, StreamableHTTPReconnectionOptions, Transport, TransportSendOptions } from '../../mcp/types.js';
import type { WireKind } from '../../codec/message-codec.js';
import { JsonMessageCodec } from '../../codec/json-codec.js';
import { MsgpackMessageCodec } from '../../codec/msgpack-codec.js';
import { validated } from '../../codec/validate.js';
import { adapterFromOption, type NativeBytesOptions } from '../../native-bytes/adapter.js';
import { handleBadMessage } from '../../connection/bad-message.js';
import type { WireChoice } from '../../connection/stream-connection.js';
import type { WireSelection } from '../../connection/wire-selection.js';
import { PayloadError } from '../../wire/errors.js';
import { FrameReader } from '../../wire/frame-reader.js';
import { ClientAuth, freshAttempt, type AuthAttempt } from './client-auth.js';
import { runtime } from '../../runtime/current.js';
import { linkSdkV1HttpError, StreamableHTTPError } from '../errors.js';
import { loadOAuthSdk, type SdkGeneration } from './oauth-sdk.js';
import { JSON_MEDIA_TYPE, MSGPACK_CLIENT_ACCEPT, MSGPACK_MEDIA_TYPE, MSGPACK_STREAM_MEDIA_TYPE, SSE_MEDIA_TYPE, mediaTypeEssence } from '../media.js';
import { createFetchWithInit, fetchLeavingRedirects, fetchWithinOrigin, normalizeHeaders, unfollowedRedirect } from './redirects.js';
import { SseReader } from './sse-reader.js';
import type { DecodeBudget } from '../../wire/constants.js';
import { readAnswer, wireDecision, type HttpFallbackReason } from './wire-fallback.js';
import { envelopeVersion, isModernProtocolVersion } from '../../jsonrpc/envelope.js';
import { isReservedHeader, modernRequestHeaders } from '../modern-headers.js';

const DEFAULT_RECONNECTION: StreamableHTTPReconnectionOptions = {
  initialReconnectionDelay: 1000,
  maxReconnectionDelay: 30000,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: 2,
};

/** Why and when the client stopped speaking MessagePack to a server. */
export interface WireFallback {
  from: 'msgpack';
  to: 'json';
  reason: HttpFallbackReason;
  status: number;
}

export interface HttpMsgpackClientOptions {
  requestInit?: RequestInit;
  authProvider?: OAuthClientProvider;
  /** Replaces the default fetch (an undici keep-alive agent on Node, the global fetch on Bun). */
  fetch?: FetchLike;
  /**
   * Redirects, as the SDK's client handles them: 'same-origin' (default) follows one only when it keeps the
   * method and stays within the request's origin (or moves it from http to https on default ports), and
   * fails the request otherwise, so a session id or token is never sent elsewhere; 'follow' leaves every
   * redirect to the fetch implementation. Applies to the OAuth requests of `authProvider` too.
   */
  redirectPolicy?: 'same-origin' | 'follow';
  reconnectionOptions?: StreamableHTTPReconnectionOptions;
  sessionId?: string;
  /**
   * 'auto' (default): post MessagePack, and speak JSON to a server whose answer shows it does not take it
   * (http/wire-fallback.ts). 'msgpack': MessagePack only (such an answer is an error). 'json': JSON only.
   */
  wire?: WireChoice;
  /** Called once if the server turns out not to speak MessagePack and the client switches to JSON. */
  onwirefallback?: (fallback: WireFallback) => void;
  /** Called once, when the wire is settled (see `onwireselected` on the transport). */
  onwireselected?: (selection: WireSelection) => void;
  /** Largest message accepted in a MessagePack reply stream (one frame's payload), in bytes. Default 64 MiB. */
  maxMessageBytes?: number;
  /** @deprecated The old name of `maxMessageBytes` (which wins when both are given). */
  maxFrameBytes?: number;
  /** Deepest nesting accepted in a received MessagePack message. Default 128. */
  maxDepth?: number;
  /** The decode budget for received MessagePack messages (SPEC.md 4.1.9): arrays and maps, and distinct short
   * keys, per payload byte. Default DEFAULT_DECODE_BUDGET (65,536 plus one per 8 bytes; per 32 for keys). */
  decodeBudget?: Partial<DecodeBudget>;
  /**
   * The native-bytes extension (SPEC.md section 8): offer it on the msgpack wire; once the server confirms,
   * media arrives as bin (handed to the SDK as base64, or as bytes through callToolNative() & co.). Default:
   * not offered, but placeholders from nativeImage() & co. are still sent as base64; false: no adapter.
   */
  nativeBytes?: boolean | NativeBytesOptions;
}

interface StreamOptions {
  resumptionToken?: string;
  onresumptiontoken?: (token: string) => void;
  replayMessageId?: RequestId;
  /** SDK v2: the caller's abort for this one request's stream (not an error when it fires). */
  requestSignal?: AbortSignal;
  /** SDK v2: told once when this request's stream is over for any reason but requestSignal. */
  onRequestStreamEnd?: () => void;
}

/** Headers a caller's per-send `headers` may not set: the transport owns them (as in SDK v2's client). */
interface RequestSignal {
  signal: AbortSignal;
  done(): void;
}

/** One decoded thing from a server stream, whichever wire it came on. */
type StreamItem = { kind: 'message'; message: JSONRPCMessage; eventId?: string } | { kind: 'event'; eventId?: string; retry?: number };

/**
 * Drop-in for the SDK's StreamableHTTPClientTransport that speaks MessagePack to servers that accept it
 * (posts application/msgpack, asks for application/msgpack first) and JSON to the rest: on a 415, or a
 * reply in JSON, it switches to JSON for this server, says so through `onwirefallback`, and goes on.
 */
export class HttpMsgpackClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  onwirefallback?: (fallback: WireFallback) => void;
  /**
   * Called once per transport with the wire it settled on: at start() when `wire` forces one, else with the
   * first answer that shows whether the server takes MessagePack.
   */
  onwireselected?: (selection: WireSelection) => void;
  /** SDK v2: one HTTP request per message, so `requestSignal` in send() aborts just that one. */
  readonly hasPerRequestStream = true;

  private readonly url: URL;
  private readonly options: HttpMsgpackClientOptions;
  private readonly fetchFn: FetchLike;
  /** fetch for the transport's own requests, with the redirect policy applied. */
  private readonly fetchRequest: FetchLike;
  private readonly fetchWithInit: FetchLike;
  private readonly closeFetch: (() => Promise<void>) | undefined;
  private readonly reconnection: StreamableHTTPReconnectionOptions;
  private readonly msgpack: MsgpackMessageCodec;
  private readonly json: JsonMessageCodec;
  private currentWire: WireKind;
  /** Whether an answer may still show that the server does not take MessagePack ('auto' until settled). */
  private wireOpen: boolean;
  private abort: AbortController | undefined;
  /** Each request's own controller while it is in flight, aborted by close(). */
  private readonly inFlight = new Set<AbortController>();
  private session: string | undefined;
  private version: string | undefined;
  private serverRetryMs: number | undefined;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly auth: ClientAuth | undefined;
  /** 2 once an SDK v2 Client drives this transport (it calls setSupportedProtocolVersions; v1's does not). */
  private sdkGeneration: SdkGeneration | undefined;

  constructor(url: URL, options: HttpMsgpackClientOptions = {}) {
    this.url = url;
    this.options = options;
    this.session = options.sessionId;
    this.reconnection = options.reconnectionOptions ?? DEFAULT_RECONNECTION;
    this.currentWire = options.wire === 'json' ? 'json' : 'msgpack';
    this.wireOpen = (options.wire ?? 'auto') === 'auto';
    this.onwirefallback = options.onwirefallback;
    this.onwireselected = options.onwireselected;
    if (options.fetch) {
      this.fetchFn = options.fetch;
    } else {
      const made = runtime.defaultFetch();
      this.fetchFn = made.fetch;
      this.closeFetch = made.close;
    }
    const follow = options.redirectPolicy === 'follow';
    this.fetchRequest = follow ? this.fetchFn : fetchWithinOrigin(this.fetchFn);
    // The SDK's auth() applies the same-origin rule itself unless its fetch is marked as leaving redirects.
    const withInit = createFetchWithInit(this.fetchFn, options.requestInit);
    this.fetchWithInit = follow ? fetchLeavingRedirects(withInit) : withInit;
    this.auth = options.authProvider ? new ClientAuth(options.authProvider, url, this.fetchWithInit, follow, () => this.sdkGeneration) : undefined;
    const adapter = adapterFromOption('client', options.nativeBytes);
    this.msgpack = new MsgpackMessageCodec({ adapter, maxDepth: options.maxDepth, decodeBudget: options.decodeBudget });
    this.json = new JsonMessageCodec({ adapter });
  }

  /** The wire in use with this server: 'msgpack' until the server shows it does not speak it. */
  get wire(): WireKind {
    return this.currentWire;
  }

  get sessionId(): string | undefined {
    return this.session;
  }

  get protocolVersion(): string | undefined {
    return this.version;
  }

  setProtocolVersion(version: string): void {
    this.version = version;
  }

  /**
   * SDK v2's Client calls this when it connects. The client has no use for the list; the call says which SDK
   * is in use, so that with both installed the OAuth flow is v2's for a v2 Client.
   */
  setSupportedProtocolVersions(_versions: string[]): void {
    this.sdkGeneration = 2;
  }

  async start(): Promise<void> {
    if (this.abort) {
      throw new Error('HttpMsgpackClientTransport already started! If using Client class, note that connect() calls start() automatically.');
    }
    this.abort = new AbortController();
    if (!this.wireOpen) this.onwireselected?.({ wire: this.currentWire, reason: 'forced' });
    await linkSdkV1HttpError();
  }

  async close(): Promise<void> {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.abort?.abort();
    for (const request of this.inFlight) request.abort(this.abort?.signal.reason);
    this.inFlight.clear();
    await this.closeFetch?.().catch(() => {});
    this.onclose?.();
  }

  /** After the user authorized in the browser: exchanges the redirect's code for tokens; then connect again. */
  async finishAuth(authorizationCode: string): Promise<void> {
    if (!this.auth) throw new (await loadOAuthSdk(this.sdkGeneration)).UnauthorizedError('No auth provider');
    await this.auth.finish(authorizationCode);
  }

  /**
   * Posts a message. SDK v2's per-send options apply: `headers` are extra headers for this request only
   * (v2 passes the `Mcp-Param-*` headers of a tool's `x-mcp-header` arguments this way; the ones the
   * transport derives itself, authorization, content type, session and the SEP-2243 version/method/name
   * headers, cannot be overridden), `requestSignal` aborts just this request, `onRequestStreamEnd` says its
   * reply stream is over.
   */
  async send(message: JSONRPCMessage | JSONRPCMessage[], options?: TransportSendOptions): Promise<void> {
    try {
      if (options?.resumptionToken) {
        const replayMessageId = !Array.isArray(message) && isJSONRPCRequest(message) ? message.id : undefined;
        this.openGetStream({ resumptionToken: options.resumptionToken, replayMessageId, requestSignal: options.requestSignal }).catch(reportedAlready);
        return;
      }
      await this.post(message, options);
    } catch (error) {
      // The caller's own abort is no transport error.
      if (options?.requestSignal?.aborted !== true) this.onerror?.(error as Error);
      throw error;
    }
  }

  async terminateSession(): Promise<void> {
    if (!this.session) return;
    try {
      const headers = await this.commonHeaders();
      const request = this.requestSignal();
      const init: RequestInit = { ...this.options.requestInit, method: 'DELETE', headers, signal: request.signal };
      const response = await this.fetchRequest(this.url, init).finally(request.done);
      await response.body?.cancel();
      if (!response.ok && response.status !== 405) {
        throw new StreamableHTTPError(response.status, `Failed to terminate session: ${this.redirectText(response) ?? response.statusText}`, { statusText: response.statusText });
      }
      this.session = undefined;
    } catch (error) {
      this.onerror?.(error as Error);
      throw error;
    }
  }

  async resumeStream(lastEventId: string, options?: { onresumptiontoken?: (token: string) => void }): Promise<void> {
    await this.openGetStream({ resumptionToken: lastEventId, onresumptiontoken: options?.onresumptiontoken });
  }

  private async post(message: JSONRPCMessage | JSONRPCMessage[], options?: TransportSendOptions): Promise<void> {
    const request = this.requestSignal(options?.requestSignal);
    let streaming = false;
    try {
      streaming = await this.postOnce(message, request, options, freshAttempt());
    } finally {
      // A streamed reply releases its signal when the stream ends.
      if (!streaming) request.done();
    }
  }

  /** One POST; true when its reply is a stream that is being read (and will release the signal). */
  private async postOnce(
    message: JSONRPCMessage | JSONRPCMessage[],
    request: RequestSignal,
    options: TransportSendOptions | undefined,
    attempt: AuthAttempt,
  ): Promise<boolean> {
    const wire = this.currentWire;
    const headers = await this.commonHeaders();
    for (const [name, value] of Object.entries(options?.headers ?? {})) if (!isReservedHeader(name)) headers.set(name, value);
    // SEP-2243: a 2026-07-28 request names its version, method and name in headers, on either wire (a
    // gateway cannot read a MessagePack body to route it).
    const derived = Array.isArray(message) ? undefined : modernRequestHeaders(message);
    if (derived) for (const [name, value] of Object.entries(derived)) headers.set(name, value);
    headers.set('content-type', wire === 'msgpack' ? MSGPACK_MEDIA_TYPE : JSON_MEDIA_TYPE);
    headers.set('accept', wire === 'msgpack' ? MSGPACK_CLIENT_ACCEPT : `${JSON_MEDIA_TYPE}, ${SSE_MEDIA_TYPE}`);
    const body = wire === 'msgpack' ? this.msgpack.encodeBody(message) : this.json.encodeBody(message);
    const init: RequestInit = { ...this.options.requestInit, method: 'POST', headers, body: body as BodyInit, signal: request.signal };
    let response = await this.fetchRequest(this.url, init);
    const sessionId = response.headers.get('mcp-session-id');
    if (sessionId) this.session = sessionId;

    if (wire === 'msgpack' && this.wireOpen) {
      const read = await readAnswer(response);
      response = read.response;
      const decision = wireDecision(read.answer);
      if (decision?.wire === 'msgpack') this.settle({ wire: 'msgpack', reason: 'msgpack-reply', status: response.status });
      else if (decision) {
        this.fallBack(decision.reason, response.status);
        if (decision.resend) {
          await response.body?.cancel();
          return this.postOnce(message, request, options, attempt);
        }
      }
    }

    // A 2026-07-28 request refused with a JSON-RPC error for it (-32020, -32022, ...): that error is the
    // answer to the call, as SDK v2's client treats it (its auto mode falls back on -32022).
    if (response.status === 400 && isModernRequest(message)) {
      const answer = await this.errorAnswer(response, message.id);
      if (answer) {
        this.onmessage?.(answer);
        return false;
      }
    }

    if (!response.ok) {
      const detail = await this.errorText(response);
      if (this.auth && (await this.auth.recover(response, attempt))) return this.postOnce(message, request, options, attempt);
      throw new StreamableHTTPError(response.status, `Error POSTing to endpoint: ${detail}`, { statusText: response.statusText, text: detail });
    }

    if (response.status === 202) {
      await response.body?.cancel();
      if (!Array.isArray(message) && isInitializedNotification(message)) {
        this.openGetStream({}).catch(reportedAlready);
      }
      return false;
    }
    const messages = Array.isArray(message) ? message : [message];
    const hasRequests = messages.some((m) => 'method' in m && 'id' in m && m.id !== undefined);
    const contentType = response.headers.get('content-type');
    const type = mediaTypeEssence(contentType);
    if (!hasRequests) {
      await response.body?.cancel();
      return false;
    }
    if (type === SSE_MEDIA_TYPE || type === MSGPACK_STREAM_MEDIA_TYPE) {
      const { onresumptiontoken, requestSignal, onRequestStreamEnd } = options ?? {};
      this.consumeStream(response.body, type, { onresumptiontoken, requestSignal, onRequestStreamEnd }, false, request.done);
      return true;
    } else if (type === JSON_MEDIA_TYPE || type === MSGPACK_MEDIA_TYPE) {
      const bytes = new Uint8Array(await response.arrayBuffer());
      const value = type === JSON_MEDIA_TYPE ? this.json.decodeValue(bytes) : this.msgpack.decodeValue(bytes);
      const replies = Array.isArray(value) ? value.map(validated) : [validated(value)];
      for (const reply of replies) this.onmessage?.(reply);
      return false;
    }
    await response.body?.cancel();
    throw new StreamableHTTPError(-1, `Unexpected content type: ${contentType}`);
  }

  /**
   * A signal for one request, aborted by close() and by the caller's `requestSignal` (SDK v2), if any. Not
   * a listener on the transport's long-lived signal: fetch keeps a listener on the signal it is given until
   * the request is collected, and one listener per call in flight on a shared signal piles up
   * (MaxListenersExceededWarning past 10 concurrent calls). The caller's signal is this request's own.
   */
  private requestSignal(callerSignal?: AbortSignal): RequestSignal {
    const controller = new AbortController();
    if (this.abort?.signal.aborted) controller.abort(this.abort.signal.reason);
    this.inFlight.add(controller);
    let unfollow = (): void => {};
    if (callerSignal) {
      if (callerSignal.aborted) controller.abort(callerSignal.reason);
      const follow = () => controller.abort(callerSignal.reason);
      callerSignal.addEventListener('abort', follow, { once: true });
      unfollow = () => callerSignal.removeEventListener('abort', follow);
    }
    return {
      signal: controller.signal,
      done: () => {
        this.inFlight.delete(controller);
        unfollow();
      },
    };
  }

  private fallBack(reason: WireFallback['reason'], status: number): void {
    if (this.currentWire === 'json') return;
    this.currentWire = 'json';
    this.onwirefallback?.({ from: 'msgpack', to: 'json', reason, status });
    this.settle({ wire: 'json', reason, status });
  }

  private settle(selection: WireSelection): void {
    if (!this.wireOpen) return;
    this.wireOpen = false;
    this.onwireselected?.(selection);
  }

  /**
   * The JSON-RPC error answering request `id` in an error reply, read from a copy of the response so
   * errorText() can still read it when it is something else.
   */
  private async errorAnswer(response: Response, id: RequestId): Promise<JSONRPCMessage | undefined> {
    const type = mediaTypeEssence(response.headers.get('content-type'));
    if (type !== JSON_MEDIA_TYPE && type !== MSGPACK_MEDIA_TYPE) return undefined;
    try {
      const bytes = new Uint8Array(await response.clone().arrayBuffer());
      const value = validated(type === JSON_MEDIA_TYPE ? this.json.decodeValue(bytes) : this.msgpack.decodeValue(bytes));
      return 'error' in value && value.id === id ? value : undefined;
    } catch {
      return undefined;
    }
  }

  /** The text of an error reply, decoding a MessagePack error body to its message. */
  private async errorText(response: Response): Promise<string> {
    const redirect = this.redirectText(response);
    if (redirect !== undefined) {
      await response.body?.cancel();
      return redirect;
    }
    try {
      if (mediaTypeEssence(response.headers.get('content-type')) === MSGPACK_MEDIA_TYPE) {
        const value = this.msgpack.decodeValue(new Uint8Array(await response.arrayBuffer())) as { error?: { message?: unknown } };
        return String(value?.error?.message ?? response.statusText);
      }
      return await response.text();
    } catch {
      return response.statusText;
    }
  }

  /** Says which redirect was not followed, for a redirect response the policy returned as it was. */
  private redirectText(response: Response): string | undefined {
    const text = unfollowedRedirect(response, this.url);
    return text !== undefined && this.options.redirectPolicy !== 'follow' ? `${text} (redirectPolicy: 'same-origin')` : text;
  }

  private async commonHeaders(): Promise<Headers> {
    const headers: Record<string, string> = {};
    const authorization = await this.auth?.authorizationHeader();
    if (authorization) headers['Authorization'] = authorization;
    if (this.session) headers['mcp-session-id'] = this.session;
    if (this.version) headers['mcp-protocol-version'] = this.version;
    return new Headers({ ...headers, ...normalizeHeaders(this.options.requestInit?.headers) });
  }

  /** Opens a GET stream; a failure goes to onerror here (once) and is also thrown to the caller. */
  private async openGetStream(options: StreamOptions): Promise<void> {
    try {
      await this.getOnce(options, freshAttempt());
    } catch (error) {
      if (options.requestSignal?.aborted !== true) this.onerror?.(error as Error);
      throw error;
    }
  }

  /** One GET for the standalone stream or a resumption; after authorizing it retries with the same options. */
  private async getOnce(options: StreamOptions, attempt: AuthAttempt): Promise<void> {
    const headers = await this.commonHeaders();
    headers.set('accept', this.currentWire === 'msgpack' ? `${MSGPACK_STREAM_MEDIA_TYPE}, ${SSE_MEDIA_TYPE}` : SSE_MEDIA_TYPE);
    if (options.resumptionToken) headers.set('last-event-id', options.resumptionToken);
    const request = this.requestSignal(options.requestSignal);
    const response = await this.fetchRequest(this.url, { method: 'GET', headers, signal: request.signal }).catch((error: unknown) => {
      request.done();
      throw error;
    });
    if (!response.ok) {
      request.done();
      await response.body?.cancel();
      // Unlike the SDK's client, the retry keeps Last-Event-ID: a resumption cut by an expired token resumes.
      if (this.auth && (await this.auth.recover(response, attempt))) return this.getOnce(options, attempt);
      if (response.status === 405) {
        options.onRequestStreamEnd?.();
        return;
      }
      throw new StreamableHTTPError(response.status, `Failed to open SSE stream: ${this.redirectText(response) ?? response.statusText}`, { statusText: response.statusText });
    }
    const type = mediaTypeEssence(response.headers.get('content-type'));
    this.consumeStream(response.body, type === MSGPACK_STREAM_MEDIA_TYPE ? type : SSE_MEDIA_TYPE, options, true, request.done);
  }

  /**
   * Reads a reply stream or the GET stream to its end, handing each message on as soon as its last byte
   * arrives. If it ends before the reply it was waiting for, it reconnects with Last-Event-ID (when the
   * server gave event ids), as the SDK's client does.
   */
  private consumeStream(body: ReadableStream<Uint8Array> | null, type: string, options: StreamOptions, reconnectable: boolean, done: () => void): void {
    if (!body) {
      done();
      options.onRequestStreamEnd?.();
      return;
    }
    const { onresumptiontoken, replayMessageId, requestSignal, onRequestStreamEnd } = options;
    let lastEventId: string | undefined;
    let sawEventId = false;
    let gotResponse = false;
    const onItem = (item: StreamItem) => {
      if (item.kind === 'event') {
        if (item.retry !== undefined) this.serverRetryMs = item.retry;
      }
      if (item.eventId) {
        lastEventId = item.eventId;
        sawEventId = true;
        onresumptiontoken?.(item.eventId);
      }
      if (item.kind === 'message') {
        const message = item.message;
        if (isJSONRPCResultResponse(message)) {
          gotResponse = true;
          if (replayMessageId !== undefined) message.id = replayMessageId;
        }
        this.onmessage?.(message);
      }
    };
    /** After the stream ended: resumes it if it ended too early, else it is over (onRequestStreamEnd). */
    const reconnectOrEnd = () => {
      if ((reconnectable || sawEventId) && !gotResponse && this.abort && !this.abort.signal.aborted) {
        this.scheduleReconnection({ resumptionToken: lastEventId, onresumptiontoken, replayMessageId, requestSignal, onRequestStreamEnd }, 0);
      } else {
        onRequestStreamEnd?.();
      }
    };
    // Items decoded from one chunk are handed on one per microtask: the SDK runs notification handlers a
    // microtask late but response handlers at once, so a progress notification delivered in the same tick
    // as its result would find its handler already gone.
    const ready: StreamItem[] = [];
    const deliverReady = async () => {
      for (let i = 0; i < ready.length; i++) {
        if (i > 0) await Promise.resolve();
        onItem(ready[i]!);
      }
      ready.length = 0;
    };
    // The signal of this connection: aborted by close(), which ends the stream on purpose.
    const closing = this.abort?.signal;
    const run = async () => {
      const reader = body.getReader();
      const collect = (item: StreamItem) => void ready.push(item);
      const decode = type === MSGPACK_STREAM_MEDIA_TYPE ? this.frameDecoder(collect) : this.sseDecoder(collect);
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          try {
            decode.push(value);
          } finally {
            await deliverReady();
          }
        }
        decode.end();
        done();
        reconnectOrEnd();
      } catch (error) {
        done();
        void reader.cancel().catch(() => {});
        // close() or the caller's requestSignal ended it: nothing went wrong.
        if (closing?.aborted || requestSignal?.aborted) return;
        this.onerror?.(new Error(`SSE stream disconnected: ${String(error)}`));
        reconnectOrEnd();
      }
    };
    void run();
  }

  /** JSON wire: SSE events whose data is one JSON-RPC message. */
  private sseDecoder(onItem: (item: StreamItem) => void): { push(chunk: Uint8Array): void; end(): void } {
    const sse = new SseReader();
    return {
      push: (chunk) =>
        sse.push(chunk, (event) => {
          if (!event.data) {
            onItem({ kind: 'event', eventId: event.id, retry: event.retry });
            return;
          }
          if (event.retry !== undefined) this.serverRetryMs = event.retry;
          if (event.event && event.event !== 'message') return;
          try {
            onItem({ kind: 'message', message: this.json.decodeMessage(event.data), eventId: event.id });
          } catch (error) {
            if (event.id) onItem({ kind: 'event', eventId: event.id });
            this.onerror?.(error as Error);
          }
        }),
      end: () => {},
    };
  }

  /**
   * MessagePack wire: msgpack-v1 frames (SPEC.md, "HTTP"). A control frame `{id}` names the event id of the
   * message frame that follows it; `{prime, retry?}` is an event without a message; `{}` is a keep-alive.
   */
  private frameDecoder(onItem: (item: StreamItem) => void): { push(chunk: Uint8Array): void; end(): void } {
    const frames = new FrameReader({ maxMessageBytes: this.options.maxMessageBytes ?? this.options.maxFrameBytes });
    let pendingId: string | undefined;
    const onPayload = (payload: Uint8Array) => {
      let value: unknown;
      try {
        value = this.msgpack.decodeValue(payload);
        if (isControl(value)) {
          if (typeof value.id === 'string') pendingId = value.id;
          if (typeof value.prime === 'string' || typeof value.retry === 'number') {
            onItem({ kind: 'event', eventId: typeof value.prime === 'string' ? value.prime : undefined, retry: typeof value.retry === 'number' ? value.retry : undefined });
          }
          return;
        }
        const eventId = pendingId;
        pendingId = undefined;
        onItem({ kind: 'message', message: validated(value), eventId });
      } catch (error) {
        if (!(error instanceof PayloadError)) throw error;
        // The frame was whole, so the stream goes on; its id still counts as delivered.
        const eventId = pendingId;
        pendingId = undefined;
        if (eventId) onItem({ kind: 'event', eventId });
        handleBadMessage(error, {
          reply: (message) => void this.post(message).catch((failure) => this.onerror?.(failure as Error)),
          deliver: (message) => this.onmessage?.(message),
          report: (problem) => this.onerror?.(problem),
        });
      }
    };
    return {
      push: (chunk) => frames.push(chunk, onPayload),
      end: () => frames.end(),
    };
  }

  private scheduleReconnection(options: StreamOptions, attempt: number): void {
    const maxRetries = this.reconnection.maxRetries;
    if (attempt >= maxRetries) {
      this.onerror?.(new Error(`Maximum reconnection attempts (${maxRetries}) exceeded.`));
      options.onRequestStreamEnd?.();
      return;
    }
    const delay =
      this.serverRetryMs ??
      Math.min(this.reconnection.initialReconnectionDelay * Math.pow(this.reconnection.reconnectionDelayGrowFactor, attempt), this.reconnection.maxReconnectionDelay);
    this.reconnectTimer = setTimeout(() => {
      if (options.requestSignal?.aborted) return;
      this.openGetStream(options).catch((error) => {
        if (options.requestSignal?.aborted) return;
        this.onerror?.(new Error(`Failed to reconnect SSE stream: ${error instanceof Error ? error.message : String(error)}`));
        this.scheduleReconnection(options, attempt + 1);
      });
    }, delay);
  }
}

/** For GET streams started in the background: openGetStream has reported the failure (the SDK reports it twice). */
function reportedAlready(): void {}

/** A single request whose `_meta` claims a 2026-07-28-era revision. */
function isModernRequest(message: JSONRPCMessage | JSONRPCMessage[]): message is JSONRPCMessage & { id: RequestId } {
  if (Array.isArray(message) || !isJSONRPCRequest(message)) return false;
  const version = envelopeVersion(message.params);
  return version !== undefined && isModernProtocolVersion(version);
}

function isControl(value: unknown): value is { id?: unknown; prime?: unknown; retry?: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !('jsonrpc' in value);
}
