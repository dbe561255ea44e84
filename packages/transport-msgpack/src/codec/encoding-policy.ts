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

/** What the policy reads of a message: a walk over at most WALK_LIMIT values, so its cost stays bounded. */
export interface MessageShape {
  values: number;
  keys: number;
  /** Values that are numbers (embeddings, series): JSON's number text is where it pays most on every runtime. */
  numbers: number;
  longestString: number;
  /** Whether the walk stopped at WALK_LIMIT (the message is at least that big). */
  truncated: boolean;
}

/**
 * Enough values to tell a message's shape; big messages are judged on their first ones. Kept small because
 * the walk is paid on every reply: at this size it stays a small share of the cheapest call
 * (scripts/measure-encoding-policy.mjs, "policy us").
 */
const WALK_LIMIT = 512;
/** A message whose object keys are at least this share of its values is key-dense. */
const KEY_DENSE_SHARE = 0.5;
/** A message whose numbers are at least this share of its values is numeric. */
const NUMERIC_SHARE = 0.5;

export function shapeOf(message: unknown): MessageShape {
  const shape: MessageShape = { values: 0, keys: 0, numbers: 0, longestString: 0, truncated: false };
  const pending: unknown[] = [message];
  while (pending.length > 0) {
    if (shape.values >= WALK_LIMIT) {
      shape.truncated = true;
      break;
    }
    const value = pending.pop();
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
      // Only the items the walk can still read: a 100,000-item array must not cost 100,000 pushes.
      const room = WALK_LIMIT - shape.values - pending.length;
      const end = Math.min(value.length, Math.max(room, 1));
      if (end < value.length) shape.truncated = true;
      for (let i = end - 1; i >= 0; i--) pending.push(value[i]);
    } else if (value !== null && typeof value === 'object') {
      for (const key in value) {
        shape.keys++;
        pending.push((value as Record<string, unknown>)[key]);
      }
    }
  }
  return shape;
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
  const shape = shapeOf(message);
  if (shape.longestString >= breakEven.longStringChars) return 'msgpack';
  if (!shape.truncated && shape.values < breakEven.smallValues) return breakEven.msgpackForSmall ? 'msgpack' : 'json';
  if (shape.numbers >= shape.values * NUMERIC_SHARE) return breakEven.msgpackForNumeric ? 'msgpack' : 'json';
  const keyDense = shape.keys >= shape.values * KEY_DENSE_SHARE;
  return (keyDense ? breakEven.msgpackForKeyDense : breakEven.msgpackForKeySparse) ? 'msgpack' : 'json';
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
