import type { JSONRPCMessage } from '../mcp/types.js';
import type { WireKind } from '../codec/message-codec.js';
import { MSGPACK_V1, acceptsUpgrade, metaEntry, offersUpgrade, saysMixed, withMetaEntry, withoutUpgradeMeta, type WireAcceptance, type WireOffer } from '../wire-choice/upgrade-offer.js';

// The stdio wire upgrade's two sides, one per connection; the offer and acceptance themselves (SPEC.md 7.1)
// are in wire-choice/upgrade-offer.ts.

/** How a connection that switched goes on: frames only (0.1.0), or each message a line or a frame (mixed). */
export type SwitchedStream = 'frames' | 'mixed';

type RequestId = string | number;
type Record_ = Record<string, unknown>;

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
