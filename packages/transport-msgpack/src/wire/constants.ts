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
 * The decode budget (SPEC.md 4.1.9): a payload of N bytes may hold at most
 * DEFAULT_CONTAINER_BUDGET.base + floor(N / DEFAULT_CONTAINER_BUDGET.bytesPerContainer) arrays and maps.
 * A container is the costly thing to build (an empty map is 1 byte on the wire and about 70 bytes in a
 * JavaScript heap); with this budget a frame of nothing but empty maps is refused instead of costing 68x
 * its size, while real MCP messages (measured: one container per 20-75 bytes) stay far inside it.
 */
export const DEFAULT_CONTAINER_BUDGET: ContainerBudget = { base: 65_536, bytesPerContainer: 8 };

export interface ContainerBudget {
  /** Containers every payload may hold, however short. */
  base: number;
  /** One more container allowed per this many payload bytes. */
  bytesPerContainer: number;
}

/** The number of arrays and maps a payload of `payloadBytes` may hold under `budget`. */
export function containerAllowance(payloadBytes: number, budget: ContainerBudget = DEFAULT_CONTAINER_BUDGET): number {
  return budget.base + Math.floor(payloadBytes / budget.bytesPerContainer);
}
