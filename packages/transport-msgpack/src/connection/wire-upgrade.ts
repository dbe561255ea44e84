import type { JSONRPCMessage } from '../mcp/types.js';
import type { WireKind } from '../codec/message-codec.js';
import { isRecord } from '../jsonrpc/is-record.js';

/**
 * The stdio wire upgrade (SPEC.md 7.1): a client that does not know whether its server speaks msgpack-v1
 * starts in JSON lines and offers it in `params._meta` of its requests; a server that speaks it accepts in
 * `result._meta` of its answer, and both switch right after that answer. A JSON-only server ignores the
 * `_meta` key, answers as usual, and the connection stays JSON.
 */
export const WIRE_UPGRADE_KEY = 'mcp-msgpack/wire';
/** The one wire a client can offer today. */
export const MSGPACK_V1 = 'msgpack-v1';

/** What the client puts under the key: the wires it can switch to, preferred first. */
export interface WireOffer {
  offer: string[];
  /** "After the switch I read each message as a JSON line or a frame, whichever it is" (SPEC.md 7.4). */
  mixed?: true;
}

/** What the server puts under the key in its answer: the wire both switch to. */
export interface WireAcceptance {
  accept: string;
  /** Only in answer to an offer that had it: the stream is mixed both ways after the switch (SPEC.md 7.4). */
  mixed?: true;
}

/** How a connection that switched goes on: frames only (0.1.0), or each message a line or a frame (mixed). */
export type SwitchedStream = 'frames' | 'mixed';

type RequestId = string | number;
type Record_ = Record<string, unknown>;

/** Whether request params carry an offer of msgpack-v1. */
export function offersUpgrade(params: unknown): boolean {
  const entry = metaEntry(params);
  return entry !== undefined && Array.isArray(entry.offer) && entry.offer.includes(MSGPACK_V1);
}

/** Whether a result accepts msgpack-v1. */
export function acceptsUpgrade(result: unknown): boolean {
  const entry = metaEntry(result);
  return entry !== undefined && entry.accept === MSGPACK_V1;
}

/** Whether an offer (request params) or an acceptance (a result) says `mixed: true`. */
function saysMixed(holder: unknown): boolean {
  return metaEntry(holder)?.mixed === true;
}

function metaEntry(holder: unknown): Record_ | undefined {
  if (!isRecord(holder) || !isRecord(holder._meta)) return undefined;
  const entry = holder._meta[WIRE_UPGRADE_KEY];
  return isRecord(entry) ? entry : undefined;
}

/** A copy of `holder` (params or result) with `value` under `_meta[WIRE_UPGRADE_KEY]`; the original is untouched. */
function withMetaEntry(holder: unknown, value: WireOffer | WireAcceptance): Record_ {
  const base = isRecord(holder) ? holder : {};
  const meta = isRecord(base._meta) ? base._meta : {};
  return { ...base, _meta: { ...meta, [WIRE_UPGRADE_KEY]: value } };
}

/** A copy of `holder` without our key (and without `_meta`, or the holder, when nothing else is left). */
function withoutMetaEntry(holder: Record_): Record_ | undefined {
  const { [WIRE_UPGRADE_KEY]: _ours, ...meta } = holder._meta as Record_;
  const { _meta: _all, ...rest } = holder;
  const out = Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The message without our `_meta` key, for the application; the message itself when it has none. */
export function withoutUpgradeMeta(message: JSONRPCMessage): JSONRPCMessage {
  const record = message as unknown as Record_;
  const member = 'params' in record ? 'params' : 'result' in record ? 'result' : undefined;
  if (member === undefined || metaEntry(record[member]) === undefined) return message;
  const stripped = withoutMetaEntry(record[member] as Record_);
  const out: Record_ = { ...record };
  // A request's params made only to carry the offer go away again; a result always keeps its object.
  if (stripped !== undefined) out[member] = stripped;
  else if (member === 'params') delete out.params;
  else out.result = {};
  return out as unknown as JSONRPCMessage;
}

function isRequest(record: Record_): boolean {
  return 'method' in record && 'id' in record;
}

function isResponse(record: Record_): boolean {
  return !('method' in record) && ('result' in record || 'error' in record);
}

/**
 * The client's side, on wire 'auto'. Every request carries the offer until the outcome is known: the
 * first result answering an offering request settles it (accepted or not); an error answer does not (a
 * 2025-11-25 server answers `server/discover` with "method not found", and the next request offers again).
 */
export class ClientWireUpgrade {
  private outcome: WireKind | undefined;
  private readonly offered = new Set<RequestId>();

  /** `mixed`: the offer says the client reads a mixed stream (SPEC.md 7.4). */
  constructor(private readonly mixed: boolean) {}

  /** Whether the outcome is still open (requests carry the offer, answers are examined). */
  get open(): boolean {
    return this.outcome === undefined;
  }

  /** An outgoing message, with the offer added while the outcome is open and it is a request. */
  outgoing(message: JSONRPCMessage): JSONRPCMessage {
    const record = message as unknown as Record_;
    if (this.outcome !== undefined || !isRequest(record)) return message;
    this.offered.add(record.id as RequestId);
    const offer: WireOffer = this.mixed ? { offer: [MSGPACK_V1], mixed: true } : { offer: [MSGPACK_V1] };
    return { ...record, params: withMetaEntry(record.params, offer) } as unknown as JSONRPCMessage;
  }

  /**
   * An incoming message read on JSON while the outcome is open: the message to hand on (without our key),
   * and the wire it settled, if it did. On 'msgpack' every later byte from the server is a frame (or, when
   * `stream` is 'mixed', a frame or a JSON line), and every later message to it must be one.
   */
  incoming(message: JSONRPCMessage): { message: JSONRPCMessage; settled?: WireKind; stream?: SwitchedStream } {
    const record = message as unknown as Record_;
    if (this.outcome !== undefined || !isResponse(record) || !this.offered.has(record.id as RequestId)) return { message };
    this.offered.delete(record.id as RequestId);
    if (!('result' in record)) return { message };
    this.offered.clear();
    this.outcome = acceptsUpgrade(record.result) ? 'msgpack' : 'json';
    if (this.outcome === 'json') return { message: withoutUpgradeMeta(message), settled: 'json' };
    // An acceptance's `mixed` counts only when our offer had it (a 0.1.0 server never sends it).
    const stream: SwitchedStream = this.mixed && saysMixed(record.result) ? 'mixed' : 'frames';
    return { message: withoutUpgradeMeta(message), settled: 'msgpack', stream };
  }
}

/**
 * The server's side, on a connection that started in JSON lines. With `mayAccept` (the server's wire is
 * 'auto'), the first result it sends to an offering request accepts, and the server writes frames from the
 * next message on; it reads the client's first frame where a line would start (SPEC.md 7.1). Offers are
 * taken off every message either way, so the application never sees them.
 */
export class ServerWireUpgrade {
  private accepted = false;
  /** Offering requests not answered yet, each with whether its offer said `mixed`. */
  private readonly offered = new Map<RequestId, boolean>();

  constructor(private readonly mayAccept: boolean) {}

  /** A message read on JSON, for the application: without our key; an offer is noted. */
  incoming(message: JSONRPCMessage): JSONRPCMessage {
    const record = message as unknown as Record_;
    if (!('params' in record) || metaEntry(record.params) === undefined) return message;
    if (this.mayAccept && !this.accepted && isRequest(record) && offersUpgrade(record.params)) this.offered.set(record.id as RequestId, saysMixed(record.params));
    return withoutUpgradeMeta(message);
  }

  /**
   * An outgoing message on JSON: `accepts` (with the stream that follows) when it is the one after which the
   * server writes frames, or, when the offer said `mixed`, frames and lines (SPEC.md 7.4).
   */
  outgoing(message: JSONRPCMessage): { message: JSONRPCMessage; accepts: SwitchedStream | undefined } {
    const record = message as unknown as Record_;
    if (this.accepted || this.offered.size === 0 || !isResponse(record) || !this.offered.has(record.id as RequestId)) return { message, accepts: undefined };
    const mixed = this.offered.get(record.id as RequestId)!;
    this.offered.delete(record.id as RequestId);
    if (!('result' in record)) return { message, accepts: undefined };
    this.accepted = true;
    this.offered.clear();
    const acceptance: WireAcceptance = mixed ? { accept: MSGPACK_V1, mixed: true } : { accept: MSGPACK_V1 };
    return { message: { ...record, result: withMetaEntry(record.result, acceptance) } as unknown as JSONRPCMessage, accepts: mixed ? 'mixed' : 'frames' };
  }
}
