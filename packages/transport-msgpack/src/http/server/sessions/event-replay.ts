import { isRequest } from '../../../jsonrpc/kinds.js';
import type { EventStore, JSONRPCMessage } from '../../../mcp/types.js';
import type { EventFormat } from '../exchange/event-format.js';
import { EventStream } from '../exchange/event-stream.js';
import { SESSION_GONE, type Refusal } from '../exchange/responses.js';
import { canFollow, type SharedEventStore } from '../exchange/shared-event-store.js';
import type { StreamTable } from '../exchange/stream-table.js';
import { TRANSPORT_ERROR } from '../../../jsonrpc/error-codes.js';

/**
 * Opens a POST's reply stream for resumption: an event with an id and no message, so the client can resume
 * it from the very start. A shared store learns the requests first, to answer them should this instance
 * die mid-stream. A store that fails here leaves the stream unprimed and unstored: it is served live, not
 * resumable (the failure is reported, the request is not refused).
 */
export async function primeStream(table: StreamTable, store: SharedEventStore, stream: EventStream, streamId: string, messages: JSONRPCMessage[], retryMs: number | undefined): Promise<void> {
  await store.streamOpened?.(
    streamId,
    messages.filter(isRequest).map((message) => message.id),
  );
  const eventId = await table.store(streamId, {} as JSONRPCMessage);
  if (eventId === undefined) return;
  stream.prime(eventId, retryMs);
  table.markResumable(streamId);
}

/**
 * Resumes a stream from the event store after `lastEventId` (GET with Last-Event-ID): replays what is
 * stored, then the stream takes new events live. A stream this transport does not produce (another
 * instance does, or did) is followed in a shared store until it ends. Throws when the store fails.
 */
export async function resumeStream(
  table: StreamTable,
  store: EventStore,
  lastEventId: string,
  format: EventFormat,
  signal: AbortSignal | undefined,
  report: (error: Error) => void,
): Promise<EventStream | Refusal> {
  let known: string | undefined;
  if (store.getStreamIdForEventId) {
    known = await store.getStreamIdForEventId(lastEventId);
    if (!known) return { status: 400, code: TRANSPORT_ERROR, message: 'Invalid event ID format' };
    if (table.has(known)) return { status: 409, code: TRANSPORT_ERROR, message: 'Conflict: Stream already has an active connection' };
  }
  const replay = new Replay(table, format, signal, report);
  if (canFollow(store) && known !== undefined && !table.produces(known)) {
    const followed = await store.followEventsAfter(lastEventId, { send: replay.send, signal: replay.following.signal });
    const id = (replay.streamId = followed.streamId);
    const end = () => table.endStream(id, replay.stream);
    followed.done.then(end, (error: unknown) => {
      report(error as Error);
      end();
    });
  } else {
    replay.streamId = await store.replayEventsAfter(lastEventId, { send: replay.send });
  }
  if (table.closed || replay.cancelled) {
    replay.following.abort();
    replay.stream.close();
    return SESSION_GONE;
  }
  table.adopt(replay.streamId, replay.stream);
  return replay.stream;
}

/** One resumed stream while its stored events are sent: the ids sent, and whether the client left meanwhile. */
class Replay {
  readonly stream: EventStream;
  readonly following = new AbortController();
  streamId: string | undefined;
  cancelled = false;
  private readonly replayed = new Set<string>();

  constructor(
    private readonly table: StreamTable,
    format: EventFormat,
    signal: AbortSignal | undefined,
    private readonly report: (error: Error) => void,
  ) {
    this.stream = new EventStream(format, (gone) => this.onCancel(gone), signal);
    this.stream.replayedEventIds = this.replayed;
  }

  /** The store's sender: a write that fails ends the replay. */
  readonly send = async (eventId: string | undefined, message: JSONRPCMessage): Promise<void> => {
    if (this.table.write(this.stream, message, eventId)) {
      if (eventId !== undefined) this.replayed.add(eventId);
    } else {
      this.report(new Error('Failed replay events'));
      this.following.abort();
      this.stream.close();
    }
  };

  private onCancel(gone: EventStream): void {
    this.cancelled = true;
    this.following.abort();
    if (this.streamId !== undefined) this.table.forgetStream(this.streamId, gone);
  }
}
