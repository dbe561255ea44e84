import { randomUUID } from 'node:crypto';
import { isJSONRPCErrorResponse, isJSONRPCResultResponse } from '../jsonrpc/kinds.js';
import type { JSONRPCMessage, RequestId } from '../mcp/types.js';
import type { FollowedEventSend, FollowedStream, SharedEventStore } from '../http/server/shared-event-store.js';
import { binaryClient, type RedisArgument, type RedisClientLike, type RedisCommands } from './client.js';
import { eventIdOf, parseEventId } from './event-id.js';
import { InstanceLiveness } from './liveness.js';
import { readEntries, type StoredEntry, END_ABANDONED, END_COMPLETE, FIELD_END, FIELD_MESSAGE, FIELD_OWNER, FIELD_REQUESTS } from './stream-entry.js';
import { StoredMessageCodec } from './stored-message.js';

export interface RedisEventStoreOptions {
  /** A connected client of the official `redis` package (v5 or v6). The store never closes it. */
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
  /** Reports failed liveness refreshes. Default: none. */
  onerror?: (error: Error) => void;
}

/** JSON-RPC error code of a request whose stream ended without its response (see README, "Failover"). */
export const STREAM_LOST_ERROR_CODE = -32000;
/** Streams this instance tracks the requests of at once; the oldest is forgotten beyond it. */
const MAX_TRACKED_STREAMS = 10_000;
const PAGE = 64;

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
  private readonly client: RedisCommands;
  private readonly prefix: string;
  private readonly maxLength: string;
  private readonly ttlMs: string;
  private readonly finishedTtlMs: string;
  private readonly pollMs: number;
  private readonly codec: StoredMessageCodec;
  private readonly liveness: InstanceLiveness;
  private readonly open = new Map<string, OpenRequests>();

  constructor(options: RedisEventStoreOptions) {
    this.client = binaryClient(options.client);
    this.prefix = options.keyPrefix ?? 'mcp:es:';
    this.maxLength = String(positive(options.maxStreamLength ?? 1000, 'maxStreamLength'));
    this.ttlMs = String(positive(options.streamTtlMs ?? 600_000, 'streamTtlMs'));
    this.finishedTtlMs = String(positive(options.finishedStreamTtlMs ?? 60_000, 'finishedStreamTtlMs'));
    this.pollMs = positive(options.followPollMs ?? 100, 'followPollMs');
    this.instanceId = options.instanceId ?? randomUUID();
    this.codec = new StoredMessageCodec(options.maxDepth);
    const livenessTtlMs = positive(options.livenessTtlMs ?? 5_000, 'livenessTtlMs');
    this.liveness = new InstanceLiveness(this.client, this.instanceKey(this.instanceId), livenessTtlMs, options.onerror ?? (() => {}));
  }

  /** The Redis stream of an MCP stream. */
  streamKey(streamId: string): string {
    return `${this.prefix}stream:${streamId}`;
  }

  /** The liveness key of an instance. */
  instanceKey(instanceId: string): string {
    return `${this.prefix}instance:${instanceId}`;
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const stored = this.codec.encodeMessage(message);
    const fields: RedisArgument[] = stored.pieces.flatMap((piece, index) => [index === 0 ? FIELD_MESSAGE : `${FIELD_MESSAGE}${index}`, piece]);
    const requests = this.open.get(streamId);
    if (requests && !requests.announced) {
      // The stream's first event names its requests, for whoever must answer them if this instance dies.
      const ids = this.codec.encodeRequestIds(requests.ids);
      fields.push(FIELD_REQUESTS, Buffer.concat(ids.pieces));
      requests.announced = true;
    }
    let finished = false;
    const answers = responseId(message);
    if (requests && answers !== undefined) {
      requests.unanswered.delete(answers);
      if (requests.unanswered.size === 0) {
        finished = true;
        this.open.delete(streamId);
        fields.push(FIELD_END, END_COMPLETE);
      }
    }
    return eventIdOf(streamId, await this.append(streamId, fields, finished, true));
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const parsed = parseEventId(eventId);
    if (!parsed) return undefined;
    const exists = await this.client.sendCommand(['EXISTS', this.streamKey(parsed.streamId)]);
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
    await this.liveness.stop();
  }

  private async append(streamId: string, fields: RedisArgument[], finished: boolean, create: boolean): Promise<string> {
    await this.liveness.ensure();
    const key = this.streamKey(streamId);
    const xadd: RedisArgument[] = ['XADD', key];
    if (!create) xadd.push('NOMKSTREAM');
    xadd.push('MAXLEN', '~', this.maxLength, '*', FIELD_OWNER, this.instanceId, ...fields);
    const ttl = finished ? this.finishedTtlMs : this.ttlMs;
    // A pipeline, not MULTI: one write, two replies, and no transaction to pay for (XADD then PEXPIRE of one key).
    const [entryId] = await this.client.multi().addCommand(xadd).addCommand(['PEXPIRE', key, ttl]).execAsPipeline();
    return entryId == null ? '' : String(entryId);
  }

  /** Where a resume starts: the event must still be stored (not trimmed, not expired), or this throws. */
  private async startAt(lastEventId: string): Promise<FollowState> {
    const parsed = parseEventId(lastEventId);
    if (!parsed) throw new Error(`not an event id of this store: ${lastEventId}`);
    const key = this.streamKey(parsed.streamId);
    const [entry] = await this.read(key, parsed.entryId, 1);
    if (entry?.id !== parsed.entryId) throw new Error(`event ${lastEventId} is no longer stored (expired, or trimmed to maxStreamLength)`);
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
      if (state.owner !== undefined && (await this.client.sendCommand(['EXISTS', this.instanceKey(state.owner)])) === 1) continue;
      // The producer is gone: take what it stored before it went, then answer what it left unanswered.
      await this.catchUp(state, send);
      if (state.ended === undefined) state.ended = 'lost';
    }
    if (signal.aborted || state.ended === END_COMPLETE) return;
    const why = state.ended === END_ABANDONED ? 'its server closed it before replying' : 'the server instance producing it stopped before replying';
    for (const id of await this.unanswered(state.key)) {
      await send(undefined, {
        jsonrpc: '2.0',
        id,
        error: { code: STREAM_LOST_ERROR_CODE, message: `Request lost: ${why}`, data: { reason: state.ended === END_ABANDONED ? 'stream-abandoned' : 'producer-lost', streamId: state.streamId } },
      });
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
    return readEntries(await this.client.sendCommand(['XRANGE', key, start, '+', 'COUNT', String(count)]));
  }
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
