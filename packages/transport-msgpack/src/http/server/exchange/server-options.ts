import type { AuthInfo, EventStore } from '../../../mcp/types.js';
import type { MessageAdapter } from '../../../codec/message-codec.js';
import type { EncodingPolicy } from '../../../codec/encoding-policy.js';
import type { NativeBytesOptions } from '../../../native-bytes/adapter.js';
import type { OldLimitNames, ReceiveLimits } from '../../../wire/receive-limits.js';
import type { ContentCoding } from '../../../runtime/content-codings.js';
import type { HostCheckOptions } from './host-check.js';
import type { SessionPrincipal } from './principal.js';

/** How a POST carrying one request is answered (SPEC.md 9.6.2): a stream only when its reply needs one, or always. */
export type ReplyStreams = 'when-needed' | 'always';

/** A request body as it arrives: a web stream, or (the node adapter's) an async iterable of chunks. */
export type BodyChunks = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/** The parts of a request the transport reads: a web Request, or the node adapter's light stand-in. */
export interface HttpRequestLike {
  readonly method: string;
  readonly url: string;
  readonly headers: { get(name: string): string | null; entries(): IterableIterator<[string, string]> };
  readonly body: BodyChunks | null;
  /** The whole body at once (a web Request's): read so when its Content-Length bounds it (incoming-post.ts). */
  arrayBuffer?(): Promise<ArrayBuffer>;
  /** Fires when the client goes away, where the server provides one (web Request.signal). */
  readonly signal?: AbortSignal;
  /**
   * Calls `gone` once if the client goes away before its reply is written whole; returns what stops the
   * watch. The node adapter's cheaper stand-in for `signal` where only that is asked (a held reply): no
   * AbortController per request.
   */
  whenGone?(gone: () => void): () => void;
}

export interface HttpHandleOptions {
  authInfo?: AuthInfo;
  /** A body already parsed as JSON by a framework (express.json()); used for JSON bodies only. */
  parsedBody?: unknown;
  /** The local address the request arrived on; loopback turns DNS-rebinding checks on by default. */
  localAddress?: string;
}

/**
 * `maxMessageBytes` (ReceiveLimits) caps a request body (one message, or one batch) in either encoding: 413 above
 * it. Default 4 MiB (DEFAULT_MAX_REQUEST_BODY_BYTES).
 */
export interface HttpMsgpackServerOptions extends HostCheckOptions, ReceiveLimits, Pick<OldLimitNames, 'maxRequestBodySize'> {
  /** Makes a session id (stateful mode); leave undefined for stateless mode, one transport per request. */
  sessionIdGenerator?: (() => string) | undefined;
  onsessioninitialized?: (sessionId: string) => void | Promise<void>;
  onsessionclosed?: (sessionId: string | undefined) => void | Promise<void>;
  /**
   * Binds a session to whoever initialized it: a later request, GET stream or DELETE whose principal differs
   * (another `authInfo`, or none) is answered 404 "Session not found", as an unknown session is, so a session
   * id that leaks serves nobody else. Default: the token's `extra.sub`, else its `clientId`
   * (`defaultSessionPrincipal`); `false` turns the binding off (a proxy that authenticates and binds itself).
   */
  sessionPrincipal?: SessionPrincipal | false;
  /**
   * How long a request that arrives on a session before the client's `notifications/initialized` waits for
   * it (relays that forward without waiting can reorder the two POSTs), before the 400 "Server not
   * initialized" refusal (SPEC.md 9.4). At most 8 requests of a session wait at once. Default 2,000 ms; 0
   * refuses at once.
   */
  initializedWaitMs?: number;
  /** Reply with one body (application/json or application/msgpack) instead of a stream. */
  enableJsonResponse?: boolean;
  /**
   * How a reply body is encoded for a client that reads both encodings (this package's clients; SPEC.md
   * 9.6): 'cheapest-cpu' (default) picks per body whichever costs less CPU on this runtime, media as bytes
   * always in MessagePack; 'smallest' always MessagePack (0.1.0's behaviour); 'json' always JSON. Clients
   * that asked for MessagePack without saying they read both always get MessagePack; streams keep the
   * encoding chosen when they open.
   */
  encoding?: EncodingPolicy;
  /**
   * How a POST carrying one request is answered when its reply may be a stream (SPEC.md 9.6.2):
   * 'when-needed' holds the reply until its first message, so a request answered by its result alone gets
   * one body (encoded as `encoding` picks, for a client that reads both), and one that sends progress,
   * logging or a request first, or is silent for the keep-alive interval, gets the stream; 'always' opens
   * the stream at once (the behaviour before this option). Default 'when-needed', or 'always' with an
   * `eventStore`, so every reply is resumable from its first byte where resumability was configured.
   * Ignored with enableJsonResponse (always one body).
   */
  replyStreams?: ReplyStreams;
  /** Stores sent events so a client can resume a cut stream (Last-Event-ID), in both encodings. */
  eventStore?: EventStore;
  /** Sent to clients as the reconnection delay with the priming event. */
  retryInterval?: number;
  /** Interval between keep-alives on open streams; 0 turns them off. Default 15 s. */
  keepAliveMs?: number;
  /** Makes this session's message adapter (the native-bytes extension plugs in here). */
  adapterFactory?: () => MessageAdapter;
  /**
   * The native-bytes extension (SPEC.md section 8): confirm it per session to msgpack clients that offer
   * it in initialize (never in stateless mode), and per request on 2026-07-28 (stateless too). Default: not negotiated, but placeholders from nativeImage() & co. are
   * still sent as base64; false: no adapter at all. Ignored when adapterFactory is given.
   */
  nativeBytes?: boolean | NativeBytesOptions;
  /**
   * The modern revisions served (2026-07-28 and later: stateless, no initialize, SPEC.md section 9.5). Default: every
   * one this package knows on a stateless transport, none on a session transport (whose clients then get
   * -32022 "unsupported protocol version" and fall back to 2025-11-25). The server connected to the
   * transport must serve them too: McpHttpHandler arranges that for SDK v2 servers.
   */
  modernRevisions?: readonly string[];
  /**
   * @internal The content codings taken in request bodies, decoded within the body cap (McpHttpHandler's
   * `compression`); a body in any other coding is answered 415 with `Accept-Encoding: identity`. Default none.
   */
  requestCodings?: readonly ContentCoding[];
}
