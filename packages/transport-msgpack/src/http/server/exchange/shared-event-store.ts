import type { EventStore, JSONRPCMessage, RequestId } from '../../../mcp/types.js';

/** Where a followed stream's events go; `eventId` is undefined for a message the store made up (an error). */
export type FollowedEventSend = (eventId: string | undefined, message: JSONRPCMessage) => void | Promise<void>;

export interface FollowedStream {
  /** The stream the resumed event belongs to. */
  streamId: string;
  /** Settles when the stream has ended: answered, abandoned, its producer lost, or `signal` aborted. */
  done: Promise<void>;
}

/**
 * The optional parts of an EventStore shared by several server instances (RedisEventStore). With them, an
 * instance can serve a resumed stream that another instance produces, or produced before it died: it
 * replays what is stored, then follows the stream until it ends, instead of waiting for sends that will
 * never come through it. A store with none of them is used exactly as the SDK's EventStore.
 */
export interface SharedEventStore extends EventStore {
  /** A POST's reply stream opens, before its first event: the requests it will answer. */
  streamOpened?(streamId: string, requestIds: readonly RequestId[]): void | Promise<void>;
  /** The transport closed with this stream unfinished: nothing more will be stored on it. */
  streamAbandoned?(streamId: string): void | Promise<void>;
  /**
   * Sends the events stored after `lastEventId`, resolves once those are sent, then keeps sending the
   * events stored later, and ends the stream when it is finished. A request of the stream that can no
   * longer be answered (its producer stopped) gets a JSON-RPC error through `send`.
   */
  followEventsAfter?(lastEventId: string, options: { send: FollowedEventSend; signal: AbortSignal }): Promise<FollowedStream>;
}

/** Whether `store` can serve streams produced elsewhere. */
export function canFollow(store: EventStore | undefined): store is SharedEventStore & Required<Pick<SharedEventStore, 'followEventsAfter'>> {
  return typeof (store as SharedEventStore | undefined)?.followEventsAfter === 'function';
}

/**
 * A shared store that cannot be reached, or did not answer in its bound: a server-side failure. A resume
 * gets 503; an event that could not be stored goes out live without an id and its stream is no longer
 * resumable.
 */
export class EventStoreUnavailableError extends Error {
  readonly reason = 'event-store-unavailable';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EventStoreUnavailableError';
  }
}

/**
 * A resume the store cannot serve without a gap: the event is no longer stored (expired, trimmed), or the
 * stream lost events (the store was unreachable, or a byte budget was reached). A resume gets 410 with the reason.
 */
export class StreamNotResumableError extends Error {
  constructor(
    message: string,
    readonly reason: 'event-not-stored' | 'stream-not-resumable',
  ) {
    super(message);
    this.name = 'StreamNotResumableError';
  }
}
