import type { JSONRPCMessage, MessageExtraInfo } from '../../../mcp/types.js';
import { adapterNeedsMsgpack, chooseWire, type EncodingPolicy } from '../../../codec/encoding-policy.js';
import type { TypedWireCodecs } from '../../../codec/wire-codecs.js';
import { runtime } from '../../../runtime/current.js';
import type { EventFormats } from './event-format.js';
import { DEFAULT_KEEP_ALIVE_MS, EventStream } from './event-stream.js';
import type { IncomingPost, PostEncodings, RequestExtra } from './incoming-post.js';
import { respond, serverFailure, singleResponse, streamResponse, type Refusal, type ReplyCodec } from './responses.js';
import type { HeldReplyControl, StreamTable } from './stream-table.js';

/** How a resumable reply stream is primed and what its messages carry (the session path, with an event store, provides it). */
export interface StreamReplay {
  /** Opens the stream for resumption before any message of it is handed over. */
  prime(stream: EventStream, streamId: string, messages: JSONRPCMessage[]): Promise<void>;
  /** What a message on a resumable stream is handed over with. */
  extraFor(message: JSONRPCMessage, extra: RequestExtra): MessageExtraInfo;
}

/** What a path says of a POST it let in: how its reply is resumed, or the endpoint's own answer to `subscriptions/listen`. */
export interface Admission {
  readonly replay?: StreamReplay;
  /**
   * The path's last check, run as the reply binds the requests to it, with no await between: two POSTs let
   * go together must not both pass a check (a duplicate request id) that the first one's binding settles.
   */
  readonly enroll?: () => Refusal | undefined;
  /** A listen stream to hold open, or the error that answers the listen request. */
  readonly listening?: EventStream | JSONRPCMessage;
}

/** What a reply reads of its request: how to learn that the client went away. */
type ClientGoing = { readonly signal?: AbortSignal; whenGone?: GoneWatch };

/** What the replies of one transport are made with. */
export interface PostRepliesOptions {
  readonly table: StreamTable;
  readonly formats: EventFormats;
  readonly codecs: TypedWireCodecs;
  readonly keepAliveMs: number;
  /** One body for every POST (enableJsonResponse). */
  readonly oneBody: boolean;
  /** Whether a POST of one request waits for its first message before choosing a body or a stream (SPEC.md 9.6.2). */
  readonly holds: boolean;
  readonly encoding: EncodingPolicy | undefined;
  /** Hands one message to the server (the transport's onmessage as it is at that moment). */
  deliver(message: JSONRPCMessage, extra: MessageExtraInfo): void;
  sessionId(): string | undefined;
  closed(): boolean;
  report(error: Error): void;
}

/**
 * How a POST that its path admitted is answered: notifications alone get 202; requests get one body
 * (enableJsonResponse), a reply held until its first message says which (SPEC.md 9.6.2), or a stream of
 * their own, resumable when the admission says how; a 2026-07-28 `subscriptions/listen` gets the endpoint's
 * stream or error. A failure on the server's side comes back as a refusal, for the transport to answer.
 */
export class PostReplies {
  /** Whether a body must go as MessagePack (native bytes), for the per-message policy; made on first use. */
  private needsMsgpack: ((body: unknown) => boolean) | undefined;

  constructor(private readonly options: PostRepliesOptions) {}

  answer(req: ClientGoing, post: IncomingPost, admission: Admission): Promise<Response | Refusal> | Response | Refusal {
    const refused = admission.enroll?.();
    if (refused) return refused;
    const { listening } = admission;
    if (listening !== undefined) return this.listenReply(listening, post.encodings);
    if (!post.hasRequests) return this.accept(post);
    if (this.options.oneBody) return this.oneBody(post);
    if (this.options.holds && post.messages.length === 1) return this.held(req, post, admission.replay);
    return this.stream(req.signal, post, admission.replay);
  }

  /** The endpoint's answer to a listen request: its stream, kept alive, or the error as one body. */
  private listenReply(listening: EventStream | JSONRPCMessage, encodings: PostEncodings): Response {
    if (!(listening instanceof EventStream)) return singleResponse(this.replyCodec(encodings), this.options.sessionId(), listening);
    listening.startKeepAlive(this.options.keepAliveMs);
    return streamResponse(listening, this.options.sessionId());
  }

  /** Notifications and responses only: handed over, answered 202 at once. */
  private accept({ messages, extra }: IncomingPost): Response {
    for (const message of messages) this.options.deliver(message, { ...extra });
    return respond(202, null, {});
  }

  /** enableJsonResponse: the replies to every request of the POST, as one body once all are in. */
  private oneBody({ messages, encodings, extra }: IncomingPost): Promise<Response> {
    const { table } = this.options;
    const streamId = crypto.randomUUID();
    return new Promise<Response>((resolve) => {
      table.openSingle(streamId, this.replyCodec(encodings), resolve);
      table.bind(messages, streamId);
      for (const message of messages) this.options.deliver(message, { ...extra });
    });
  }

  /**
   * One request's reply, held (SPEC.md 9.6.2): one body, chosen as single bodies are, when its final
   * response is the first message for it; otherwise (another message first, the hold interval passed, the
   * server ending it) the stream `stream` would have opened, primed when resumable, with the held messages
   * first. A client that leaves meanwhile ends the hold with nothing written or stored.
   */
  private held(req: ClientGoing, { messages, encodings, extra }: IncomingPost, replay: StreamReplay | undefined): Promise<Response | Refusal> {
    const { table, keepAliveMs } = this.options;
    const streamId = crypto.randomUUID();
    return new Promise<Response | Refusal>((resolve, reject) => {
      const openStream = async () => {
        // The signal is asked for only now: a reply answered as one body never makes one.
        const stream = table.unlisted(streamId, this.options.formats[encodings.reply], req.signal);
        try {
          if (replay && !this.options.closed()) await replay.prime(stream, streamId, messages);
        } catch (error) {
          stream.close();
          table.abandon(streamId, messages);
          this.options.report(error as Error);
          return resolve(serverFailure(error));
        }
        if (!table.install(streamId, held, stream)) return stream.close();
        stream.startKeepAlive(keepAliveMs);
        resolve(streamResponse(stream, this.options.sessionId()));
      };
      const gone = () => {
        // Nobody reads this answer: the client's connection is closed.
        if (table.dropHeld(streamId, held)) resolve(respond(202, null, {}));
      };
      const held = new HeldReply(openStream, holdInterval(keepAliveMs), clientGoneWatch(req), gone);
      table.hold(streamId, held, this.replyCodec(encodings), resolve);
      table.bind(messages, streamId);
      try {
        this.deliverAll(messages, extra, replay);
      } catch (error) {
        table.abandon(streamId, messages);
        reject(error);
      }
    });
  }

  /** The replies on a stream of their own, primed first when the client may resume it from the event store. */
  private async stream(signal: AbortSignal | undefined, { messages, encodings, extra }: IncomingPost, replay: StreamReplay | undefined): Promise<Response> {
    const { table } = this.options;
    const streamId = crypto.randomUUID();
    const stream = table.open(streamId, this.options.formats[encodings.reply], signal);
    table.bind(messages, streamId);
    try {
      if (replay) await replay.prime(stream, streamId, messages);
      this.deliverAll(messages, extra, replay);
    } catch (error) {
      table.abandon(streamId, messages);
      throw error;
    }
    if (table.isOpen(streamId, stream)) stream.startKeepAlive(this.options.keepAliveMs);
    return streamResponse(stream, this.options.sessionId());
  }

  private deliverAll(messages: JSONRPCMessage[], extra: RequestExtra, replay: StreamReplay | undefined): void {
    for (const message of messages) this.options.deliver(message, replay ? replay.extraFor(message, extra) : { ...extra });
  }

  /**
   * The codec of a one-body reply: the POST's reply encoding, or, for a client that reads both (SPEC.md 9.6),
   * the one the `encoding` policy picks for that body. Streams keep the encoding they open with.
   */
  private replyCodec(encodings: PostEncodings): ReplyCodec {
    const { codecs } = this.options;
    if (!encodings.perMessage) return codecs[encodings.reply];
    const policy = this.options.encoding ?? 'cheapest-cpu';
    this.needsMsgpack ??= adapterNeedsMsgpack(codecs.msgpack.adapter);
    const needsMsgpack = this.needsMsgpack;
    return { choose: (body) => codecs[chooseWire(body, policy, runtime.encodingBreakEven, needsMsgpack)], signalJson: encodings.signalJsonReply };
  }
}

/** A held reply opens its stream after this long at most, whatever the keep-alive interval (SPEC.md 9.6.2 rule 5). */
const MAX_HOLD_MS = 30_000;

/**
 * How long a held reply waits for its first message before it opens its stream: the stream keep-alive
 * interval, so a client or proxy never waits longer for headers than it would have for a stream's first
 * keep-alive; 15 s when keep-alives are off, and never beyond 30 s.
 */
export function holdInterval(keepAliveMs: number): number {
  return Math.min(keepAliveMs >= 1 ? keepAliveMs : DEFAULT_KEEP_ALIVE_MS, MAX_HOLD_MS);
}

/** Calls `gone` once if the client goes away; returns what stops the watch. */
export type GoneWatch = (gone: () => void) => () => void;

/**
 * How a held reply learns that its client left: the request's own watch where the adapter has one (node:http,
 * no AbortController), else its abort signal (a web Request's), else nothing.
 */
export function clientGoneWatch(req: { readonly signal?: AbortSignal; whenGone?: GoneWatch }): GoneWatch | undefined {
  if (req.whenGone) return req.whenGone;
  const { signal } = req;
  if (!signal) return undefined;
  return (gone) => {
    if (signal.aborted) {
      queueMicrotask(gone);
      return () => {};
    }
    signal.addEventListener('abort', gone, { once: true });
    return () => signal.removeEventListener('abort', gone);
  };
}

/**
 * The reply to a POST of one request while nothing of it has been sent (SPEC.md 9.6.2): the stream table
 * answers it as one body if the request's final response comes first, else asks it to open its stream (any
 * other message first, the hold interval passed, the server ending it). It ends the hold itself when the
 * client goes away, with nothing written.
 */
export class HeldReply implements HeldReplyControl {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private opening: Promise<void> | undefined;
  private unwatch: (() => void) | undefined;

  /**
   * `openStream`: makes and primes the stream and answers the POST with it (the transport's part);
   * `watchGone`: watches for the client leaving (clientGoneWatch); `gone`: the client left while held.
   */
  constructor(
    private readonly openStream: () => Promise<void>,
    holdMs: number,
    watchGone: GoneWatch | undefined,
    gone: () => void,
  ) {
    this.timer = setTimeout(() => void this.open(), holdMs);
    this.timer.unref?.();
    this.unwatch = watchGone?.(() => {
      this.dispose();
      gone();
    });
  }

  /** Whether the stream was asked for: from then on every message waits for it, the final response included. */
  get opened(): boolean {
    return this.opening !== undefined;
  }

  /** Opens the stream once; every caller waits for the same opening, so messages keep their order. */
  open(): Promise<void> {
    this.stopTimer();
    this.opening ??= this.openStream();
    return this.opening;
  }

  /** No timer, no abort watch: the reply went as one body, or its stream took over, or it was dropped. */
  dispose(): void {
    this.stopTimer();
    this.unwatch?.();
    this.unwatch = undefined;
  }

  private stopTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
