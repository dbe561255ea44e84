/** The name of this wire, as SPEC.md defines it. */
export const WIRE_NAME = 'msgpack-v1';

/** Media type of a MessagePack request or response body (one MessagePack value, no frame header). */
export const MSGPACK_MEDIA_TYPE = 'application/msgpack';

/** Bytes in the big-endian length prefix in front of every frame. */
export const FRAME_HEADER_BYTES = 4;

/** Largest payload the 4-byte header can describe. */
export const MAX_FRAME_BYTES_LIMIT = 0xffff_ffff;

/** Deepest nesting of arrays and maps a decoder accepts unless configured otherwise. */
export const DEFAULT_MAX_DEPTH = 128;

/**
 * The decode budget (SPEC.md 4.1.9): a payload of N bytes may hold at most base + floor(N / bytesPerContainer)
 * arrays, maps and bins, keyBase + floor(N / bytesPerShortKey) distinct map keys shorter than 16 bytes and as
 * many distinct map shapes (key orders, KeyBudget), and values that cost wordBase + floor(N / bytesPerWord)
 * words to build (guard-rules.ts: VALUE_OBJECT_WORDS, BIN_WORDS, SHORT_STRING_WORDS). Those are the costly things to build from few bytes (an empty map is
 * 1 byte on the wire and about 70 bytes in a JavaScript heap; a fresh short key, once validated by the SDK,
 * about 250 bytes on V8 and 650 on JavaScriptCore; a hidden class per key-order prefix about 170; a 2-letter
 * string 32 bytes with its slot), while real MCP messages (one container per 20-75 bytes, a few dozen distinct
 * keys and shapes, under a word a byte) stay inside. What a payload can cost beyond what it builds is the
 * runtime's: `packages/bench/stress/amplification.mjs` measures it, SPEC.md 4.1.9 has the figures.
 */
export const DEFAULT_DECODE_BUDGET: DecodeBudget = { base: 65_536, bytesPerContainer: 8, keyBase: 8_192, bytesPerShortKey: 128, wordBase: 262_144, bytesPerWord: 1 };

export interface DecodeBudget {
  /** Arrays, maps and bins that every payload may hold, however short. */
  base: number;
  /** One more array, map or bin allowed per this many payload bytes. */
  bytesPerContainer: number;
  /** Distinct short keys, and distinct map shapes, that every payload may hold. */
  keyBase: number;
  /** One more distinct short key, and one more map shape, allowed per this many payload bytes. */
  bytesPerShortKey: number;
  /** Words of built values (valueWords: what decoding builds, in 8-byte words) that every payload may hold. */
  wordBase: number;
  /** One more word of built values allowed per this many payload bytes. */
  bytesPerWord: number;
}

/** The number of arrays, maps and bins a payload of `payloadBytes` may hold under `budget`. */
export function containerAllowance(payloadBytes: number, budget: DecodeBudget = DEFAULT_DECODE_BUDGET): number {
  return budget.base + Math.floor(payloadBytes / budget.bytesPerContainer);
}

/** The words of built values (as counted above) a payload of `payloadBytes` may hold under `budget`. */
export function wordAllowance(payloadBytes: number, budget: DecodeBudget = DEFAULT_DECODE_BUDGET): number {
  return budget.wordBase + Math.floor(payloadBytes / budget.bytesPerWord);
}

/**
 * The number of distinct short map keys, and of distinct map shapes, a payload of `payloadBytes` may hold
 * under `budget`; Infinity when it cannot hold more (each key and each shape step takes a map entry, two
 * bytes at least), so that short payloads, most messages, skip the count without escaping it.
 */
export function shortKeyAllowance(payloadBytes: number, budget: DecodeBudget = DEFAULT_DECODE_BUDGET): number {
  const allowance = budget.keyBase + Math.floor(payloadBytes / budget.bytesPerShortKey);
  return Math.floor(payloadBytes / 2) <= allowance ? Infinity : allowance;
}

/** A stream reader's pushFrom() answer when it read the whole chunk without being told to stop (a message may be held). */
export const READ_ALL = -1;
