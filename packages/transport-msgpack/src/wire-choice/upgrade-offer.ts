import type { JSONRPCMessage } from '../mcp/types.js';
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

/** Whether an offer (request params) or an acceptance (a result) says `mixed: true` (SPEC.md 7.4). */
export function saysMixed(holder: unknown): boolean {
  return metaEntry(holder)?.mixed === true;
}

/** Our entry in `holder._meta` (params or result), if there is one. */
export function metaEntry(holder: unknown): Record_ | undefined {
  if (!isRecord(holder) || !isRecord(holder._meta)) return undefined;
  const entry = holder._meta[WIRE_UPGRADE_KEY];
  return isRecord(entry) ? entry : undefined;
}

/** A copy of `holder` (params or result) with `value` under `_meta[WIRE_UPGRADE_KEY]`; the original is untouched. */
export function withMetaEntry(holder: unknown, value: WireOffer | WireAcceptance): Record_ {
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
