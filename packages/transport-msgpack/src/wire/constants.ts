/** The name of this wire, as SPEC.md defines it. */
export const WIRE_NAME = 'msgpack-v1';

/** Media type of a MessagePack request or response body (one MessagePack value, no frame header). */
export const MSGPACK_MEDIA_TYPE = 'application/msgpack';

/** Bytes in the big-endian length prefix in front of every frame. */
export const FRAME_HEADER_BYTES = 4;

/** Largest payload a receiver accepts unless configured otherwise: 64 MiB. */
export const DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024;

/** Largest payload the 4-byte header can describe. */
export const MAX_FRAME_BYTES_LIMIT = 0xffff_ffff;

/** Deepest nesting of arrays and maps a decoder accepts unless configured otherwise. */
export const DEFAULT_MAX_DEPTH = 128;

/**
 * The decode budget (SPEC.md 4.1.9): a payload of N bytes may hold at most base + floor(N / bytesPerContainer)
 * arrays, maps and bins, and base + floor(N / bytesPerShortKey) distinct map keys shorter than 16 bytes. Those are
 * the costly things to build from few bytes (an empty map is 1 byte on the wire and about 70 bytes in a
 * JavaScript heap; a fresh short key about 250): with this budget no payload costs more than about 16x its
 * size, while real MCP messages (one container per 20-75 bytes, a few dozen distinct keys) stay far inside.
 */
export const DEFAULT_DECODE_BUDGET: DecodeBudget = { base: 65_536, bytesPerContainer: 8, bytesPerShortKey: 32 };

export interface DecodeBudget {
  /** Arrays and maps, and distinct short keys, that every payload may hold, however short. */
  base: number;
  /** One more array or map allowed per this many payload bytes. */
  bytesPerContainer: number;
  /** One more distinct map key shorter than 16 bytes allowed per this many payload bytes. */
  bytesPerShortKey: number;
}

/** The number of arrays and maps a payload of `payloadBytes` may hold under `budget`. */
export function containerAllowance(payloadBytes: number, budget: DecodeBudget = DEFAULT_DECODE_BUDGET): number {
  return budget.base + Math.floor(payloadBytes / budget.bytesPerContainer);
}

/**
 * Payloads under this size skip the key count: their worst case is bounded in absolute terms (about 32 MiB
 * at 1 MiB), and hashing every short key would cost object-heavy messages 8-15% of their decode time.
 */
export const KEY_BUDGET_FROM_BYTES = 1024 * 1024;

/** The number of distinct short map keys a payload of `payloadBytes` may hold under `budget`. */
export function shortKeyAllowance(payloadBytes: number, budget: DecodeBudget = DEFAULT_DECODE_BUDGET): number {
  if (payloadBytes < KEY_BUDGET_FROM_BYTES) return Infinity;
  return budget.base + Math.floor(payloadBytes / budget.bytesPerShortKey);
}
