import { isInitializedNotification, isJSONRPCRequest } from '../../jsonrpc/kinds.js';
import type { JSONRPCMessage, JSONRPCRequest, Transport, TransportSendOptions } from '../../mcp/types.js';
import type { WireKind } from '../../codec/message-codec.js';
import { createWireCodecs, type TypedWireCodecs } from '../../codec/wire-codecs.js';
import { adapterNeedsMsgpack, chooseWire } from '../../codec/encoding-policy.js';
import { runtime } from '../../runtime/current.js';
import { adapterFromOption } from '../../native-bytes/adapter.js';
import type { WireSelection } from '../../wire-choice/wire-selection.js';
import { linkSdkV1HttpError, StreamableHTTPError } from '../errors.js';
import { fromMsgpackServer, mediaTypeEssence } from '../media.js';
import { ClientAuth, freshAttempt, type AuthAttempt } from './client-auth.js';
import { clientFetches, type ClientFetches } from './client-fetch.js';
import { dpopResourceFetch } from './dpop-fetch.js';
import { replyForm, streamWireOf } from './client-media.js';
import type { HttpMsgpackClientOptions } from './client-options.js';
import { ClientWire, type WireFallback } from './client-wire.js';
import { wireMemory } from './wire-memory.js';
import { errorText, isNotInitializedRefusal, redirectText, refusalAnswer } from './error-reply.js';
import type { AuthorizationCallback } from './auth-callback.js';
import { loadOAuthSdk } from './oauth-sdk.js';
import { readPostReply, type ReplyHost } from './post-reply.js';
import { DEFAULT_RECONNECTION, Reconnection } from './reconnection.js';
import { RequestHeaders } from './request-headers.js';
import { ClientCoding } from './client-coding.js';
import { RequestSignals, type RequestSignal } from './request-signals.js';
import { SdkGenerationChoice } from './sdk-generation.js';
import { readServerStream, type StreamHost, type StreamOptions } from './server-stream.js';
import { capturingHost } from './prefetch-reply.js';
import { ToolsListPrefetch } from './tools-list-prefetch.js';
import { resolveReceiveLimits, type ResolvedReceiveLimits } from '../../wire/receive-limits.js';

export type { HttpMsgpackClientOptions } from './client-options.js';
export type { WireFallback } from './client-wire.js';

/**
 * Drop-in for the SDK's StreamableHTTPClientTransport that speaks MessagePack to servers that accept it
 * (posts application/msgpack, asks for application/msgpack first) and JSON to the rest: on a 415, or a
 * reply in JSON, it switches to JSON for this server, says so through `onwirefallback`, and goes on.
 */
/** How long close() waits for its DELETE (endSessionOnClose). */
const CLOSE_DELETE_TIMEOUT_MS = 2_000;

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
  private readonly fetches: ClientFetches;
  private readonly auth: ClientAuth | undefined;
  private readonly codecs: TypedWireCodecs;
  /** `notifications/initialized` posted in the background (postsInBackground): true once it was accepted. */
  private initializedPost: Promise<boolean> | undefined;
  /** close() has begun. */
  private closing = false;
  /** Whether a body must go as MessagePack (native bytes), for the per-message policy; made on first use. */
  private needsMsgpack: ((body: unknown) => boolean) | undefined;
  private readonly wireState: ClientWire;
  private readonly headers: RequestHeaders;
  private readonly coding: ClientCoding;
  private readonly signals = new RequestSignals();
  private readonly reconnection: Reconnection;
  /** What it accepts from the server (ReceiveLimits), checked when it is made. */
  private readonly limits: ResolvedReceiveLimits;
  /** What the reply and stream readers hand back to this transport. */
  private readonly host: StreamHost & ReplyHost;
  /** Which SDK's OAuth flow runs: the one whose Client drives this transport (sdk-generation.ts). */
  private readonly sdkGeneration: SdkGenerationChoice;
  /** The tools/list posted beside SDK v2's discover, kept for the SDK's own (tools-list-prefetch.ts). */
  private readonly prefetch: ToolsListPrefetch;

  constructor(url: URL, options: HttpMsgpackClientOptions = {}) {
    this.url = url;
    this.options = options;
    this.onwirefallback = options.onwirefallback;
    this.onwireselected = options.onwireselected;
    const follow = options.redirectPolicy === 'follow';
    this.sdkGeneration = new SdkGenerationChoice(options.oauthSdk, options.authProvider);
    this.fetches = clientFetches(options, (fetch) => dpopResourceFetch(options.authProvider, fetch));
    this.auth = options.authProvider ? new ClientAuth(options.authProvider, url, this.fetches.withInit, follow, this.sdkGeneration) : undefined;
    const adapter = adapterFromOption('client', options.nativeBytes);
    this.limits = resolveReceiveLimits(options);
    this.codecs = createWireCodecs({ adapter, maxDepth: this.limits.maxDepth, decodeBudget: this.limits.decodeBudget });
    const memory = wireMemory(options.fetch);
    this.wireState = new ClientWire(
      options.wire,
      {
        fellBack: (fallback) => this.onwirefallback?.(fallback),
        selected: (selection) => this.onwireselected?.(selection),
        learned: (wire) => memory.remember(url, wire),
      },
      memory.recall(url),
    );
    this.headers = new RequestHeaders(this.auth, options.requestInit, options.sessionId);
    this.coding = new ClientCoding(options.compression !== false, options.fetch !== undefined);
    this.reconnection = new Reconnection(options.reconnectionOptions ?? DEFAULT_RECONNECTION, {
      reopen: (stream) => this.openGetStream(stream),
      report: (error) => this.onerror?.(error),
    });
    this.host = this.readerHost();
    // With an authProvider or a fetch of the caller's only when asked for: a token the discover has to
    // refresh is refused on the prefetch too, one more 401 (and DPoP nonce challenge) at the server, and a
    // fetch that runs OAuth itself (SDK v2's withOAuth middleware) would start a second authorization beside
    // the discover's.
    const prefetching = options.prefetchToolsList ?? (this.auth === undefined && options.fetch === undefined);
    this.prefetch = new ToolsListPrefetch(prefetching, (request, signal) => this.postPrefetch(request, signal));
  }

  /** The wire in use with this server: 'msgpack' until the server shows it does not speak it. */
  get wire(): WireKind {
    return this.wireState.current;
  }

  get sessionId(): string | undefined {
    return this.headers.sessionId;
  }

  get protocolVersion(): string | undefined {
    return this.headers.protocolVersion;
  }

  setProtocolVersion(version: string): void {
    this.headers.protocolVersion = version;
  }

  /**
   * SDK v2's Client calls this when it connects. The client has no use for the list; the call says which SDK
   * is in use, so that with both installed the OAuth flow is v2's for a v2 Client (sdk-generation.ts).
   */
  setSupportedProtocolVersions(_versions: string[]): void {
    this.sdkGeneration.sawV2Client();
  }

  async start(): Promise<void> {
    if (this.signals.started) {
      throw new Error('HttpMsgpackClientTransport already started! If using Client class, note that connect() calls start() automatically.');
    }
    this.signals.start();
    this.wireState.start();
    await linkSdkV1HttpError();
  }

  async close(): Promise<void> {
    this.reconnection.cancel();
    this.prefetch.drop();
    // A notifications/initialized still in flight (postsInBackground) is let finish, so that the session the
    // caller may resume by id later (endSessionOnClose: false) is an initialized one; bounded like the DELETE.
    // Its failure then is no news for a caller who is closing (a server gone, say).
    this.closing = true;
    if (this.initializedPost) await settledWithin(this.initializedPost, CLOSE_DELETE_TIMEOUT_MS);
    this.signals.abortAll();
    if (this.options.endSessionOnClose !== false) await this.endSessionQuietly();
    await this.fetches.close?.().catch(() => {});
    this.onclose?.();
  }

  /**
   * After the user authorized in the browser: exchanges the redirect's code for tokens; then connect again.
   * Takes what the SDK's transports take: the code and the redirect's `iss` parameter, or the redirect's
   * whole query (`URLSearchParams`), so that under SDK v2 the issuer checks of RFC 9207 / SEP-2468 run.
   */
  async finishAuth(authorization: AuthorizationCallback, iss?: string): Promise<void> {
    if (!this.auth) throw new (await loadOAuthSdk(await this.sdkGeneration.resolve())).UnauthorizedError('No auth provider');
    await this.auth.finish(authorization, iss);
  }

  /**
   * Posts a message. SDK v2's per-send options apply: `headers` are extra headers for this request only
   * (v2 passes the `Mcp-Param-*` headers of a tool's `x-mcp-header` arguments this way; the ones the
   * transport derives itself, authorization, content type, session and the SEP-2243 version/method/name
   * headers, cannot be overridden), `requestSignal` aborts just this request, `onRequestStreamEnd` says its
   * reply stream is over.
   */
  async send(message: JSONRPCMessage | JSONRPCMessage[], options?: TransportSendOptions): Promise<void> {
    this.sdkGeneration.noteMessage(message);
    const prefetch = this.prefetch.prefetchFor(message);
    try {
      const prefetched = this.prefetch.answer(message, options);
      const answer = prefetched && (await prefetched);
      if (answer) {
        this.onmessage?.(answer);
        return;
      }
      if (options?.resumptionToken) {
        const replayMessageId = !Array.isArray(message) && isJSONRPCRequest(message) ? message.id : undefined;
        this.openGetStream({ resumptionToken: options.resumptionToken, replayMessageId, requestSignal: options.requestSignal }).catch(reportedAlready);
        return;
      }
      if (this.postsInBackground(message, options)) {
        // send() returns once the POST is handed to the fetch, so it is issued before anything sent after it.
        await new Promise<void>((issued) => {
          this.initializedPost = this.post(message, options, issued).then(
            () => true,
            (error: unknown) => {
              // close() aborts it on purpose; anything else is the transport's error, as a failed send's is.
              if (this.signals.open && !this.closing) this.onerror?.(error as Error);
              return false;
            },
          );
          void this.initializedPost.then(() => issued());
        });
        return;
      }
      // The prefetch leaves right after the discover, side by side with it.
      await this.post(message, options, prefetch && (() => this.prefetch.start(prefetch)));
    } catch (error) {
      // The caller's own abort is no transport error.
      if (options?.requestSignal?.aborted !== true) this.onerror?.(error as Error);
      throw error;
    }
  }

  /**
   * `notifications/initialized` to a server that speaks msgpack-v1 is posted without waiting for its 202, so
   * the session's first requests leave at once: the opening takes two round trips, not three (initialize,
   * then the notification and the first requests side by side; docs/MEASUREMENTS.md, the link scenario).
   * Such a server waits a moment for the notification when a request overtakes it (SPEC.md 9.4); a server
   * not known to wait (one answering in JSON), or with an authProvider (a 401 to the notification would be
   * recovered side by side with the requests' own, refreshing the token twice), gets the stock client's
   * order, the 202 awaited first; a request a
   * server refuses as not initialized yet (it did not wait) goes again once the notification is accepted. A
   * failure goes to onerror instead of the caller, who has nothing to retry: the session's next requests say it too.
   */
  private postsInBackground(message: JSONRPCMessage | JSONRPCMessage[], options: TransportSendOptions | undefined): boolean {
    return !Array.isArray(message) && isInitializedNotification(message) && this.wireState.serverSpeaksMsgpack && options?.requestSignal === undefined && this.auth === undefined;
  }

  /**
   * close()'s DELETE: what is in flight was aborted first, so it runs on a signal of its own, bounded, and
   * a server that is gone or refuses changes nothing for the caller (the session then ends at its expiry).
   */
  private async endSessionQuietly(): Promise<void> {
    if (!this.headers.sessionId) return;
    try {
      const headers = await this.headers.common();
      const init: RequestInit = { ...this.options.requestInit, method: 'DELETE', headers, signal: AbortSignal.timeout(CLOSE_DELETE_TIMEOUT_MS) };
      const response = await this.fetches.request(this.url, init);
      await response.body?.cancel();
      if (response.ok) this.headers.sessionId = undefined;
    } catch {
      // Gone, refused or slow: nothing the caller of close() can do about it.
    }
  }

  async terminateSession(): Promise<void> {
    if (!this.headers.sessionId) return;
    try {
      const headers = await this.headers.common();
      const request = this.signals.forRequest();
      const init: RequestInit = { ...this.options.requestInit, method: 'DELETE', headers, signal: request.signal };
      const response = await this.fetches.request(this.url, init).finally(request.done);
      await response.body?.cancel();
      if (!response.ok && response.status !== 405) {
        throw new StreamableHTTPError(response.status, `Failed to terminate session: ${this.redirectText(response) ?? response.statusText}`, { statusText: response.statusText });
      }
      this.headers.sessionId = undefined;
    } catch (error) {
      this.onerror?.(error as Error);
      throw error;
    }
  }

  async resumeStream(lastEventId: string, options?: { onresumptiontoken?: (token: string) => void }): Promise<void> {
    await this.openGetStream({ resumptionToken: lastEventId, onresumptiontoken: options?.onresumptiontoken });
  }

  /** `issued`: called when the POST is handed to the fetch. */
  private async post(message: JSONRPCMessage | JSONRPCMessage[], options?: TransportSendOptions, issued?: () => void): Promise<void> {
    const request = this.signals.forRequest(options?.requestSignal);
    let streaming = false;
    try {
      streaming = await this.postOnce(message, request, options, freshAttempt(), false, issued);
    } finally {
      // A streamed reply releases its signal when the stream ends.
      if (!streaming) request.done();
    }
  }

  /** The encoding of one request body, to a server that reads either (the `encoding` option). */
  private requestWire(message: JSONRPCMessage | JSONRPCMessage[]): WireKind {
    this.needsMsgpack ??= adapterNeedsMsgpack(this.codecs.msgpack.adapter);
    return chooseWire(message, this.options.encoding ?? 'cheapest-cpu', runtime.encodingBreakEven, this.needsMsgpack);
  }

  /** One POST; true when its reply is a stream that is being read (and will release the signal). */
  private async postOnce(
    message: JSONRPCMessage | JSONRPCMessage[],
    request: RequestSignal,
    options: TransportSendOptions | undefined,
    attempt: AuthAttempt,
    reordered = false,
    issued?: () => void,
  ): Promise<boolean> {
    const wire = this.wireState.current;
    const codec = this.codecs[this.wireState.perMessage ? this.requestWire(message) : wire];
    const headers = await this.headers.post(message, codec, wire, options?.headers);
    this.coding.advertise(headers);
    const plain = codec.encodeBody(message);
    const coded = await this.coding.code(plain);
    if (coded) headers.set('content-encoding', coded.coding);
    const init: RequestInit = { ...this.options.requestInit, method: 'POST', headers, body: (coded?.body ?? plain) as BodyInit, signal: request.signal };
    const sending = this.fetches.request(this.url, init);
    issued?.();
    const sent = await sending;
    this.headers.noteSession(sent);
    this.coding.learn(sent);
    if (this.coding.refusedCoded(sent, coded !== undefined)) {
      await sent.body?.cancel().catch(() => {});
      // Request coding is off from now on: the body goes again, uncoded.
      return this.postOnce(message, request, options, attempt);
    }
    await this.coding.check(sent);
    const plainSent = await this.coding.decodeDictionary(sent, this.limits.maxMessageBytes);
    const response = await this.wireState.learn(plainSent, codec.wire, this.limits.maxMessageBytes);
    if (!response) return this.postOnce(message, request, options, attempt);
    // It overtook the notification posted in the background at a server that did not wait for it: once the
    // notification is accepted, it goes again (once).
    if (!reordered && this.initializedPost && (await isNotInitializedRefusal(response, this.codecs, this.limits.maxMessageBytes)) && (await this.initializedPost)) {
      await response.body?.cancel().catch(() => {});
      return this.postOnce(message, request, options, attempt, true);
    }
    const refusal = await refusalAnswer(response, message, this.codecs, this.limits.maxMessageBytes);
    if (refusal) {
      this.onmessage?.(refusal);
      return false;
    }
    if (!response.ok) {
      const detail = await errorText(response, this.codecs, this.redirectText(response), this.limits.maxMessageBytes);
      if (this.auth && (await this.auth.recover(response, attempt))) return this.postOnce(message, request, options, attempt);
      throw new StreamableHTTPError(response.status, `Error POSTing to endpoint: ${detail}`, { statusText: response.statusText, text: detail });
    }
    return readPostReply(response, message, request, options, this.host);
  }

  /**
   * The prefetched tools/list (tools-list-prefetch.ts), posted as any request is (headers and auth, the
   * body's encoding and coding) and its answer read on the same path (content codings, either wire), but it
   * teaches the transport nothing (the wire, the session, the server's codings are learned from the SDK's
   * own requests, so the fallback and retry rules run as without it), recovers nothing (a 401 is the
   * discover's to recover) and reports nothing: any failure is undefined. An answer to a MessagePack body
   * counts only from a server that has shown it speaks msgpack-v1: anything else may be a JSON-only
   * server's answer to bytes it could not read.
   */
  private async postPrefetch(request: JSONRPCRequest, signal: AbortSignal): Promise<JSONRPCMessage[] | undefined> {
    const inFlight = this.signals.forRequest(signal);
    let streaming = false;
    try {
      const wire = this.wireState.current;
      const codec = this.codecs[this.wireState.perMessage ? this.requestWire(request) : wire];
      const headers = await this.headers.post(request, codec, wire, undefined);
      this.coding.advertise(headers);
      const plain = codec.encodeBody(request);
      const coded = await this.coding.code(plain);
      if (coded) headers.set('content-encoding', coded.coding);
      const init: RequestInit = { ...this.options.requestInit, method: 'POST', headers, body: (coded?.body ?? plain) as BodyInit, signal: inFlight.signal };
      const response = await this.fetches.request(this.url, init);
      const fromMsgpack = fromMsgpackServer(response.headers) || replyForm(mediaTypeEssence(response.headers.get('content-type')))?.wire === 'msgpack';
      if (response.status !== 200 || (codec.wire === 'msgpack' && !this.wireState.serverSpeaksMsgpack && !fromMsgpack)) {
        await response.body?.cancel().catch(() => {});
        return undefined;
      }
      await this.coding.check(response);
      const reply = await this.coding.decodeDictionary(response, this.limits.maxMessageBytes);
      const capture = capturingHost(this.host);
      streaming = await readPostReply(reply, request, inFlight, undefined, capture.host);
      if (streaming) await capture.streamEnded;
      return capture.messages;
    } catch {
      return undefined;
    } finally {
      // A streamed reply released its signal when it ended.
      if (!streaming) inFlight.done();
    }
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
    const headers = await this.headers.get(this.wireState, options.resumptionToken);
    this.coding.advertise(headers);
    const request = this.signals.forRequest(options.requestSignal);
    const response = await this.fetches.request(this.url, { method: 'GET', headers, signal: request.signal }).catch((error: unknown) => {
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
    await this.coding.check(response, true).catch((error: unknown) => {
      request.done();
      throw error;
    });
    const wire = streamWireOf(mediaTypeEssence(response.headers.get('content-type')));
    readServerStream(response.body, wire, options, true, request.done, this.host);
  }

  private redirectText(response: Response): string | undefined {
    return redirectText(response, this.url, this.options.redirectPolicy);
  }

  private readerHost(): StreamHost & ReplyHost {
    return {
      codecs: this.codecs,
      maxMessageBytes: this.limits.maxMessageBytes,
      signals: this.signals,
      deliver: (message) => {
        if ('method' in message && message.method === 'notifications/tools/list_changed') this.prefetch.drop();
        this.onmessage?.(message);
      },
      report: (error) => this.onerror?.(error),
      reply: (message) => void this.post(message).catch((failure) => this.onerror?.(failure as Error)),
      retry: (ms) => void (this.reconnection.serverRetryMs = ms),
      reconnect: (stream) => this.reconnection.schedule(stream, 0),
      openStandaloneStream: () => void this.openGetStream({}).catch(reportedAlready),
      readStream: (body, wire, stream, release) => readServerStream(body, wire, stream, false, release, this.host),
    };
  }
}

/** Waits for `settling` (which does not reject) at most `ms`. */
async function settledWithin(settling: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([settling, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** For GET streams started in the background: openGetStream has reported the failure (the SDK reports it twice). */
function reportedAlready(): void {}
