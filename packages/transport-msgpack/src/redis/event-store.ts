import { randomUUID } from 'node:crypto';
import { isJSONRPCErrorResponse, isJSONRPCResultResponse } from '../jsonrpc/kinds.js';
import type { JSONRPCMessage, RequestId } from '../mcp/types.js';
import { TRANSPORT_ERROR } from '../jsonrpc/error-codes.js';
import { StreamNotResumableError, type FollowedEventSend, type FollowedStream, type SharedEventStore } from '../http/server/exchange/shared-event-store.js';
import { BoundedCommands } from './bounded-commands.js';
import { ByteLedger } from './byte-ledger.js';
import { binaryCommands, type RedisArgument, type RedisClientLike } from './client.js';
import { eventIdOf, parseEventId } from './event-id.js';
import { InstanceLiveness } from './liveness.js';
import { readEntries, type StoredEntry, END_ABANDONED, END_COMPLETE, END_UNRESUMABLE, FIELD_END, FIELD_MESSAGE, FIELD_OWNER, FIELD_REQUESTS } from './stream-entry.js';
import { StoredMessageCodec } from './stored-message.js';

export interface RedisEventStoreOptions {
  /**
   * A connected client of the official `redis` package (v5 or v6), `createClient()` or `createCluster()`.
   * The store never closes it, and listens for its 'error' events (reported through onerror). Give it
   * `socket: { reconnectStrategy: reconnectWithBackoff }` to reconnect within ~1 s of Redis coming back.
   */
  client: RedisClientLike;
  /** Prefix of every key the store writes. Default `mcp:es:`. */
  keyPrefix?: string;
  /** Entries kept per stream (XADD MAXLEN ~, so Redis may keep up to ~100 more). Default 1000. */
  maxStreamLength?: number;
  /** How long an unfinished stream is kept after its latest event. Default 10 minutes. */
  streamTtlMs?: number;
  /** How long a finished stream (every request answered, or abandoned) is kept, for late resumes. Default 60 s. */
  finishedStreamTtlMs?: number;
  /** How long this instance counts as alive without a refresh (refreshed every third of it). Default 5 s. */
  livenessTtlMs?: number;
  /** How often a stream produced elsewhere is polled for new events while followed. Default 100 ms. */
  followPollMs?: number;
  /** This instance's id in the stored events. Default: a random UUID. */
  instanceId?: string;
  /** Deepest nesting accepted when reading a stored message back. Default 128. */
  maxDepth?: number;
  /**
   * The longest any store operation may wait for Redis; past it the operation fails (and Redis counts as
   * stalled until it answers a PING). Default 1000 ms.
   */
  operationTimeoutMs?: number;
  /**
   * A larger event is not stored: a response is stored as a JSON-RPC error that says so (a resume gets that
   * error instead of the result), anything else ends the stream's resumability. Default 1 MiB.
   */
  maxEventBytes?: number;
  /** Bytes kept per stream: past it the oldest entries are trimmed (a resume from them gets 410). Default 8 MiB. */
  maxStreamBytes?: number;
  /** Bytes this instance keeps in Redis over all its streams: past it, new events are not stored. Default 256 MiB. */
  maxStoreBytes?: number;
  /** Reports the client's errors (Redis unreachable, reconnecting) and failed liveness refreshes. Default: none. */
  onerror?: (error: Error) => void;
}

/** JSON-RPC error code of a request whose stream ended without its response (see README, "Failover"). */
export const STREAM_LOST_ERROR_CODE = TRANSPORT_ERROR;
/** Streams this instance tracks the requests of at once; the oldest is forgotten beyond it. */
const MAX_TRACKED_STREAMS = 10_000;
const PAGE = 64;
const MIB = 1024 * 1024;
/** How often end markers of streams that lost events are retried while Redis cannot take them. */
const MARKER_RETRY_MS = 250;

interface OpenRequests {
  ids: RequestId[];
  unanswered: Set<RequestId>;
  announced: boolean;
}

/** Where a follow has got to in a stream. */
interface FollowState {
  streamId: string;
  key: string;
  position: string;
  owner: string | undefined;
  ended: string | undefined;
}

/**
 * An EventStore in Redis Streams, shared by every instance of a server (SharedEventStore): one Redis stream
 * per MCP stream, entries holding msgpack-v1 payloads as bytes. Any instance can replay any stream, and
 * follow one that another instance produces; a stream whose producer died ends with a JSON-RPC error for
 * each request it left unanswered. Key layout, options and failure behaviour: the package README, "Redis
 * event store".
 */
export class RedisEventStore implements SharedEventStore {
  readonly instanceId: string;
  private readonly redis: BoundedCommands;
  private readonly prefix: string;
  private readonly maxLength: string;
  private readonly ttlMs: number;
  private readonly finishedTtlMs: number;
  private readonly pollMs: number;
  private readonly maxEventBytes: number;
  private readonly ledger: ByteLedger;
  private readonly codec: StoredMessageCodec;
  private readonly liveness: InstanceLiveness;
  private readonly report: (error: Error) => void;
  private readonly open = new Map<string, OpenRequests>();
  /** Streams that lost an event: nothing more is stored on them; true once their end marker is in Redis. */
  private readonly unresumable = new Map<string, boolean>();
  private markerRetry: ReturnType<typeof setTimeout> | undefined;

  constructor(options: RedisEventStoreOptions) {
    this.report = options.onerror ?? (() => {});
    // Without a listener, the client's 'error' event (Redis restarting, say) would end the process.
    options.client.on?.('error', (error: Error) => this.report(error));
    this.redis = new BoundedCommands(binaryCommands(options.client), positive(options.operationTimeoutMs ?? 1_000, 'operationTimeoutMs'));
    this.prefix = options.keyPrefix ?? 'mcp:es:';
    const maxLength = positive(options.maxStreamLength ?? 1000, 'maxStreamLength');
    this.maxLength = String(maxLength);
    this.ttlMs = positive(options.streamTtlMs ?? 600_000, 'streamTtlMs');
    this.finishedTtlMs = positive(options.finishedStreamTtlMs ?? 60_000, 'finishedStreamTtlMs');
    this.pollMs = positive(options.followPollMs ?? 100, 'followPollMs');
    const maxStreamBytes = positive(options.maxStreamBytes ?? 8 * MIB, 'maxStreamBytes');
    this.maxEventBytes = Math.min(positive(options.maxEventBytes ?? MIB, 'maxEventBytes'), maxStreamBytes);
    this.ledger = new ByteLedger(maxStreamBytes, positive(options.maxStoreBytes ?? 256 * MIB, 'maxStoreBytes'), maxLength);
    this.instanceId = options.instanceId ?? randomUUID();
    this.codec = new StoredMessageCodec(options.maxDepth);
    const livenessTtlMs = positive(options.livenessTtlMs ?? 5_000, 'livenessTtlMs');
    this.liveness = new InstanceLiveness(this.redis, this.instanceKey(this.instanceId), livenessTtlMs, this.report);
  }

  /**
   * The Redis stream of an MCP stream. The stream id is a hash tag (`{...}`): every key of one stream maps
   * to one Redis Cluster slot, so its pipelined commands go to one node.
   */
  streamKey(streamId: string): string {
    return `${this.prefix}stream:{${streamId}}`;
  }

  /** The liveness key of an instance. */
  instanceKey(instanceId: string): string {
    return `${this.prefix}instance:${instanceId}`;
  }

  /** The bytes this instance's streams hold in Redis (what maxStoreBytes is checked against). */
  get storedBytes(): number {
    return this.ledger.storedBytes;
  }

  /**
   * Whether Redis answers a PING within `timeoutMs` (default the operation timeout): a readiness probe.
   * Never waits longer, never throws.
   */
  ready(timeoutMs?: number): Promise<boolean> {
    return this.redis.ping(timeoutMs);
  }

  /**
   * Stores one event. Fails (EventStoreUnavailableError) when Redis is unreachable or does not answer within
   * operationTimeoutMs, and (StreamNotResumableError) on a stream that lost an event before: the stream is
   * then marked not resumable in Redis as soon as Redis takes it, so a resume gets an error, never a gap.
   */
  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    if (this.unresumable.has(streamId)) throw new StreamNotResumableError(`stream ${streamId} lost events: not stored any more`, 'stream-not-resumable');
    try {
      return await this.store(streamId, message);
    } catch (error) {
      this.lose(streamId);
      throw error;
    }
  }

  private async store(streamId: string, message: JSONRPCMessage): Promise<string> {
    let stored = this.codec.encodeMessage(message);
    let bytes = sizeOf(stored.pieces);
    const answers = responseId(message);
    if (bytes > this.maxEventBytes) {
      // A large result is not copied into Redis: a resume gets an error saying so in its place.
      if (answers === undefined) throw new StreamNotResumableError(`an event of ${bytes} bytes is over maxEventBytes (${this.maxEventBytes})`, 'stream-not-resumable');
      stored = this.codec.encodeMessage(tooLargeToStore(answers, bytes, this.maxEventBytes));
      bytes = sizeOf(stored.pieces);
    }
    if (!this.ledger.fits(bytes)) throw new StreamNotResumableError(`the store is over its byte budget (maxStoreBytes)`, 'stream-not-resumable');
    const fields: RedisArgument[] = stored.pieces.flatMap((piece, index) => [index === 0 ? FIELD_MESSAGE : `${FIELD_MESSAGE}${index}`, piece]);
    const requests = this.open.get(streamId);
    if (requests && !requests.announced) {
      // The stream's first event names its requests, for whoever must answer them if this instance dies.
      const ids = this.codec.encodeRequestIds(requests.ids);
      fields.push(FIELD_REQUESTS, Buffer.concat(ids.pieces));
      requests.announced = true;
    }
    let finished = false;
    if (requests && answers !== undefined) {
      requests.unanswered.delete(answers);
      if (requests.unanswered.size === 0) {
        finished = true;
        this.open.delete(streamId);
        fields.push(FIELD_END, END_COMPLETE);
      }
    }
    const entryId = await this.append(streamId, fields, finished, true);
    const ttl = finished ? this.finishedTtlMs : this.ttlMs;
    const trimBefore = this.ledger.add(streamId, entryId, bytes, ttl);
    if (trimBefore !== undefined) await this.redis.send(this.streamKey(streamId), ['XTRIM', this.streamKey(streamId), 'MINID', trimBefore]);
    return eventIdOf(streamId, entryId);
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const parsed = parseEventId(eventId);
    if (!parsed) return undefined;
    const key = this.streamKey(parsed.streamId);
    const exists = await this.redis.send(key, ['EXISTS', key]);
    return exists === 1 ? parsed.streamId : undefined;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const state = await this.startAt(lastEventId);
    await this.catchUp(state, (eventId, message) => send(eventId!, message));
    return state.streamId;
  }

  streamOpened(streamId: string, requestIds: readonly RequestId[]): void {
    if (requestIds.length === 0) return;
    this.open.set(streamId, { ids: [...requestIds], unanswered: new Set(requestIds), announced: false });
    if (this.open.size > MAX_TRACKED_STREAMS) this.open.delete(this.open.keys().next().value!);
  }

  async streamAbandoned(streamId: string): Promise<void> {
    this.open.delete(streamId);
    if (this.unresumable.has(streamId)) return;
    // Only a stream that has events gets the marker (NOMKSTREAM): there is nothing to resume otherwise.
    await this.append(streamId, [FIELD_END, END_ABANDONED], true, false);
  }

  async followEventsAfter(lastEventId: string, { send, signal }: { send: FollowedEventSend; signal: AbortSignal }): Promise<FollowedStream> {
    const state = await this.startAt(lastEventId);
    await this.catchUp(state, send);
    return { streamId: state.streamId, done: this.follow(state, send, signal) };
  }

  /**
   * Stops this instance's liveness refresh and deletes its key, so streams it leaves unanswered end for
   * their followers at once instead of after livenessTtlMs. The client stays open.
   */
  async close(): Promise<void> {
    this.open.clear();
    if (this.markerRetry !== undefined) clearTimeout(this.markerRetry);
    this.markerRetry = undefined;
    this.redis.stop();
    await this.liveness.stop().catch(this.report);
  }

  /** A stream lost an event: stored no more, and marked as such in Redis (now, or once Redis takes it). */
  private lose(streamId: string): void {
    if (this.unresumable.has(streamId)) return;
    this.open.delete(streamId);
    this.unresumable.set(streamId, false);
    if (this.unresumable.size > MAX_TRACKED_STREAMS) this.unresumable.delete(this.unresumable.keys().next().value!);
    this.writeMarkers();
  }

  /** Writes the end markers not yet in Redis; retries while Redis cannot take them. */
  private writeMarkers(): void {
    if (this.markerRetry !== undefined) return;
    const pending = [...this.unresumable].filter(([, written]) => !written).map(([streamId]) => streamId);
    if (pending.length === 0) return;
    void Promise.all(
      pending.map(async (streamId) => {
        if (!this.redis.available) return false;
        try {
          await this.append(streamId, [FIELD_END, END_UNRESUMABLE], true, false);
          if (this.unresumable.has(streamId)) this.unresumable.set(streamId, true);
          return true;
        } catch {
          return false;
        }
      }),
    ).then((written) => {
      if (written.every(Boolean)) return;
      this.markerRetry = setTimeout(() => {
        this.markerRetry = undefined;
        this.writeMarkers();
      }, MARKER_RETRY_MS);
      this.markerRetry.unref?.();
    });
  }

  private async append(streamId: string, fields: RedisArgument[], finished: boolean, create: boolean): Promise<string> {
    await this.liveness.ensure();
    const key = this.streamKey(streamId);
    const xadd: RedisArgument[] = ['XADD', key];
    if (!create) xadd.push('NOMKSTREAM');
    xadd.push('MAXLEN', '~', this.maxLength, '*', FIELD_OWNER, this.instanceId, ...fields);
    const ttl = finished ? this.finishedTtlMs : this.ttlMs;
    // A pipeline, not MULTI: one write, two replies, and no transaction to pay for (XADD then PEXPIRE of one key).
    const [entryId] = await this.redis.pipeline(key, [xadd, ['PEXPIRE', key, String(ttl)]]);
    if (finished) this.ledger.expireIn(streamId, ttl);
    return entryId == null ? '' : String(entryId);
  }

  /**
   * Where a resume starts: the event must still be stored (not trimmed, not expired), and the stream must
   * not have lost events since, or this throws StreamNotResumableError.
   */
  private async startAt(lastEventId: string): Promise<FollowState> {
    const parsed = parseEventId(lastEventId);
    if (!parsed) throw new StreamNotResumableError(`not an event id of this store: ${lastEventId}`, 'event-not-stored');
    const key = this.streamKey(parsed.streamId);
    const [at, last] = await this.redis.pipeline(key, [
      ['XRANGE', key, parsed.entryId, '+', 'COUNT', '1'],
      ['XREVRANGE', key, '+', '-', 'COUNT', '1'],
    ]);
    const [entry] = readEntries(at);
    if (entry?.id !== parsed.entryId) throw new StreamNotResumableError(`event ${lastEventId} is no longer stored (expired, or trimmed by maxStreamLength or maxStreamBytes)`, 'event-not-stored');
    if (readEntries(last)[0]?.end === END_UNRESUMABLE) {
      throw new StreamNotResumableError(`stream ${parsed.streamId} lost events after ${lastEventId} (the event store was unreachable or over its byte budget): it cannot be resumed`, 'stream-not-resumable');
    }
    return { streamId: parsed.streamId, key, position: entry.id, owner: entry.owner, ended: entry.end };
  }

  /** Sends every stored event after the state's position; true if there was any. */
  private async catchUp(state: FollowState, send: FollowedEventSend): Promise<boolean> {
    let any = false;
    for (;;) {
      const entries = await this.read(state.key, `(${state.position}`, PAGE);
      for (const entry of entries) {
        any = true;
        state.position = entry.id;
        state.owner = entry.owner ?? state.owner;
        if (entry.message) {
          const message = this.codec.decodeMessage(entry.message);
          if (message) await send(eventIdOf(state.streamId, entry.id), message);
        }
        if (entry.end) state.ended = entry.end;
      }
      if (entries.length < PAGE) return any;
    }
  }

  /** Polls a stream produced elsewhere until it ends, its producer is gone, or the follower leaves. */
  private async follow(state: FollowState, send: FollowedEventSend, signal: AbortSignal): Promise<void> {
    while (state.ended === undefined && !signal.aborted) {
      await sleep(this.pollMs, signal);
      if (signal.aborted || (await this.catchUp(state, send))) continue;
      const ownerKey = state.owner === undefined ? undefined : this.instanceKey(state.owner);
      if (ownerKey !== undefined && (await this.redis.send(ownerKey, ['EXISTS', ownerKey])) === 1) continue;
      // The producer is gone: take what it stored before it went, then answer what it left unanswered.
      await this.catchUp(state, send);
      if (state.ended === undefined) state.ended = 'lost';
    }
    if (signal.aborted || state.ended === END_COMPLETE) return;
    const { why, reason } = LOSSES[state.ended ?? 'lost'] ?? LOSSES.lost!;
    for (const id of await this.unanswered(state.key)) {
      await send(undefined, { jsonrpc: '2.0', id, error: { code: STREAM_LOST_ERROR_CODE, message: `Request lost: ${why}`, data: { reason, streamId: state.streamId } } });
    }
  }

  /** The requests of a stream with no response stored (read from the whole stream: only when one is lost). */
  private async unanswered(key: string): Promise<RequestId[]> {
    let requests: RequestId[] | undefined;
    const answered = new Set<RequestId>();
    let start = '-';
    for (;;) {
      const entries = await this.read(key, start, PAGE);
      for (const entry of entries) {
        if (entry.requests && requests === undefined) requests = this.codec.decodeRequestIds(entry.requests);
        const answers = entry.message && responseId(this.codec.decodeMessage(entry.message));
        if (answers !== undefined) answered.add(answers);
      }
      if (entries.length < PAGE) break;
      start = `(${entries[entries.length - 1]!.id}`;
    }
    // A stream trimmed past its first event has lost the list of its requests: nothing to answer then.
    return (requests ?? []).filter((id) => !answered.has(id));
  }

  private async read(key: string, start: string, count: number): Promise<StoredEntry[]> {
    return readEntries(await this.redis.send(key, ['XRANGE', key, start, '+', 'COUNT', String(count)]));
  }
}

/** Why a followed stream ended without every response, as its unanswered requests are told. */
const LOSSES: Record<string, { why: string; reason: string }> = {
  [END_ABANDONED]: { why: 'its server closed it before replying', reason: 'stream-abandoned' },
  [END_UNRESUMABLE]: { why: 'events of its stream could not be stored (the event store was unreachable or over its byte budget)', reason: 'events-lost' },
  lost: { why: 'the server instance producing it stopped before replying', reason: 'producer-lost' },
};

/** What a resume gets in place of a response over maxEventBytes, which was sent live but not stored. */
function tooLargeToStore(id: RequestId, bytes: number, maxEventBytes: number): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: STREAM_LOST_ERROR_CODE,
      message: `Result not resumable: its ${bytes} bytes are over the event store's maxEventBytes (${maxEventBytes}); call again`,
      data: { reason: 'event-too-large', bytes },
    },
  };
}

function sizeOf(pieces: readonly Buffer[]): number {
  let bytes = 0;
  for (const piece of pieces) bytes += piece.byteLength;
  return bytes;
}

/** The id of the request a message answers; undefined if it is not a response. */
function responseId(message: JSONRPCMessage | undefined): RequestId | undefined {
  return message && (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) ? (message.id ?? undefined) : undefined;
}

function positive(value: number, name: string): number {
  if (!(value > 0) || !Number.isFinite(value)) throw new RangeError(`${name} must be a positive number`);
  return value;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
