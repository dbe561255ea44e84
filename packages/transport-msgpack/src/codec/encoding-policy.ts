import type { EncodingBreakEven } from '../runtime/runtime.js';
import type { MessageAdapter, WireKind } from './message-codec.js';

export type { EncodingBreakEven };

/**
 * Which encoding a message goes in when the peer reads both (SPEC.md 9.6):
 * - 'cheapest-cpu' (the default): whichever costs less CPU to encode and decode for this message on this
 *   runtime; native bytes always go as MessagePack;
 * - 'smallest': MessagePack always (0.1.0's behaviour): the fewest bytes, whatever the CPU;
 * - 'json': JSON always, even for media (base64), for a peer or a proxy that should see text.
 */
export type EncodingPolicy = 'cheapest-cpu' | 'smallest' | 'json';

/** What the policy reads of a message: a walk over at most WALK_LIMIT values (or the runtime's walkValues), so its cost stays bounded. */
export interface MessageShape {
  values: number;
  keys: number;
  /** Values that are numbers (embeddings, series): JSON's number text is where it pays most on every runtime. */
  numbers: number;
  longestString: number;
  /** Whether the walk stopped at its limit (the message is at least that big). */
  truncated: boolean;
  /**
   * How many values the whole message holds, estimated from what the walk read: an array it read only in
   * part counts its unread items at the average of those it read (recursively, so nested record arrays
   * extrapolate level by level). Exact when the walk was not truncated.
   */
  estimatedValues: number;
}

/**
 * Enough values to tell a message's shape; big messages are judged on their first ones. Kept small because
 * the walk is paid on every reply: at this size it stays a small share of the cheapest call
 * (`npx mcp-msgpack-bench --calibrate`; the "policy us" figures were the since-deleted
 * measure-encoding-policy.mjs's, at commit 38681c6). A runtime may read fewer (EncodingBreakEven.walkValues).
 */
const WALK_LIMIT = 512;
/** A message whose object keys are at least this share of its values is key-dense. */
const KEY_DENSE_SHARE = 0.5;
/** A message whose numbers are at least this share of its values is numeric. */
const NUMERIC_SHARE = 0.5;

/** The shape of `message`, read from at most `limit` values. */
export function shapeOf(message: unknown, limit: number = WALK_LIMIT): MessageShape {
  const shape: MessageShape = { values: 0, keys: 0, numbers: 0, longestString: 0, truncated: false, estimatedValues: 0 };
  shape.estimatedValues = walk(message, shape, limit);
  return shape;
}

/**
 * Reads one value into `shape`, and what it holds while the walk has room (depth first, in order, so the
 * recursion is at most `limit` deep). Returns the estimated count of values in it, itself included.
 */
function walk(value: unknown, shape: MessageShape, limit: number): number {
  shape.values++;
  if (typeof value === 'string') {
    if (value.length > shape.longestString) shape.longestString = value.length;
  } else if (typeof value === 'number') {
    shape.numbers++;
  } else if (value instanceof Uint8Array) {
    // Bytes that do not go as bin (no native bytes on this connection) go as base64 text on either wire.
    const base64Chars = Math.ceil(value.byteLength / 3) * 4;
    if (base64Chars > shape.longestString) shape.longestString = base64Chars;
  } else if (Array.isArray(value)) {
    // Only the items the walk can still read: a 100,000-item array must not cost 100,000 steps. The rest
    // count at the average of the items read, so the estimate sees the array's length.
    let read = 0;
    let inRead = 0;
    while (read < value.length && shape.values < limit) inRead += walk(value[read++], shape, limit);
    if (read === value.length) return 1 + inRead;
    shape.truncated = true;
    return 1 + (read === 0 ? value.length : (inRead * value.length) / read);
  } else if (value !== null && typeof value === 'object') {
    let inside = 0;
    for (const key in value) {
      if (shape.values >= limit) {
        shape.truncated = true;
        break;
      }
      shape.keys++;
      inside += walk((value as Record<string, unknown>)[key], shape, limit);
    }
    return 1 + inside;
  }
  return 1;
}

/**
 * The wire for one message. `needsMsgpack` (the connection's MessageAdapter) is asked only under
 * 'cheapest-cpu': media as bytes (a Uint8Array or a native-bytes placeholder at a media field) always goes
 * as MessagePack, where it travels as bin rather than base64, and so does an answer that confirms the
 * native-bytes extension, which counts only on MessagePack.
 */
export function chooseWire(message: unknown, policy: EncodingPolicy, breakEven: EncodingBreakEven, needsMsgpack: (message: unknown) => boolean): WireKind {
  if (policy === 'smallest') return 'msgpack';
  if (policy === 'json') return 'json';
  if (needsMsgpack(message)) return 'msgpack';
  const shape = shapeOf(message, breakEven.walkValues);
  if (shape.longestString >= breakEven.longStringChars) return 'msgpack';
  if (!shape.truncated && shape.values < breakEven.smallValues) return breakEven.msgpackForSmall ? 'msgpack' : 'json';
  if (shape.numbers >= shape.values * NUMERIC_SHARE) return breakEven.msgpackForNumeric ? 'msgpack' : 'json';
  // Records: MessagePack's per-key cost beats JSON's only once the message is big enough (on some runtimes
  // never), so the rule reads the estimated size, not the walk's capped count.
  if (shape.keys >= shape.values * KEY_DENSE_SHARE) return shape.estimatedValues >= breakEven.keyDenseMsgpackValues ? 'msgpack' : 'json';
  return breakEven.msgpackForKeySparse ? 'msgpack' : 'json';
}

/**
 * chooseWire's `needsMsgpack` for a connection: its adapter asked of a message, or of each message of a
 * batch. Made once per transport, not per body.
 */
export function adapterNeedsMsgpack(adapter: MessageAdapter): (body: unknown) => boolean {
  const needs = (message: unknown) => adapter.needsMsgpack?.(message as never) ?? false;
  return (body) => (Array.isArray(body) ? body.some(needs) : needs(body));
}

/**
 * A stdio connection's per-message choice (SPEC.md 7.4): chooseWire with the connection's policy, its
 * runtime's break-even and its adapter, made once when the stream turns mixed. The two fixed policies skip
 * the walk entirely.
 */
export function messageWirePicker(policy: EncodingPolicy, breakEven: EncodingBreakEven, adapter: MessageAdapter): (message: unknown) => WireKind {
  if (policy === 'smallest') return () => 'msgpack';
  if (policy === 'json') return () => 'json';
  const needsMsgpack = adapterNeedsMsgpack(adapter);
  return (message) => chooseWire(message, policy, breakEven, needsMsgpack);
}
