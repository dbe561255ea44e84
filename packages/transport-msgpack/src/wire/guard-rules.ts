/**
 * What guardPayload and guardedDecode both need to apply SPEC.md's receive rules the same way: the options,
 * the `__proto__` and short-key tests, and the top-level keys the clues of a refused message come from.
 */

export interface GuardOptions {
  maxDepth: number;
  allowBin: boolean;
  /**
   * Where bin is allowed, allow it only as the value of a `data` or `blob` member (SPEC.md 4.1.3): every
   * media field is one, so a message receiver refuses any other bin before it is built. Default false: any place.
   */
  binOnlyAtMediaKeys?: boolean;
  /** Most arrays and maps the payload may hold (the decode budget, containerAllowance). */
  maxContainers: number;
  /**
   * Most distinct map keys shorter than SHORT_KEY_BYTES, and most distinct map shapes, the payload may hold
   * (shortKeyAllowance; KeyBudget). Default: no limit.
   */
  maxShortKeys?: number;
  /** Most words of built values the payload may hold (the decode budget, wordAllowance). Default: no limit. */
  maxWords?: number;
}

/**
 * Keys shorter than this are counted against the key budget. A JavaScript engine builds a hidden class or
 * dictionary entry per distinct key, far larger than a short key on the wire (a one-entry map with a fresh
 * 5-byte key is 8 bytes), so unbudgeted such maps cost many times their size; from 16 bytes up a key pays
 * for itself. `node packages/bench/stress/amplification.mjs` measures it; the package README ("The decode budget") has the figures.
 */
export const SHORT_KEY_BYTES = 16;

/**
 * What the values of a payload cost to build, in 8-byte words, as the decode budget counts it (SPEC.md 4.1.9):
 * every value takes a word (its slot in the array or map that holds it, or the payload's own); an array or
 * map VALUE_OBJECT_WORDS more, a bin BIN_WORDS more, and a str of 2 to 15 bytes that is not a map key
 * SHORT_STRING_WORDS more. Map keys cost no word of their own: a member's slot is its value's (the key budget
 * prices keys). The prices are what a JavaScript receiver pays, on the dearer engine, measured
 * (`packages/bench/stress/amplification.mjs`, SPEC.md 4.1.9 has the figures):
 * - an array or map: its object, about 56 bytes empty on V8, 64 on JavaScriptCore;
 * - a bin: its view object (about 110 bytes on V8) and, at a media field, the base64 string and the copied
 *   content block a receiver that hands base64 to its SDK makes of it: an image block of a 1-byte bin costs
 *   about 320 bytes at peak on V8 and 490 on JavaScriptCore, of which the bin's share is about 370;
 * - a short string: 24-32 bytes on V8, about 36 on JavaScriptCore, and as much again while it is young (the
 *   young generation copies it before it is promoted: arrays of 2- to 4-byte strings cost a fresh Node
 *   15-18x their size at the 3 words these strings were priced at before, 7-12x at 6).
 * A 1-char or empty string is shared by the engines, and a str of 16 bytes or more is at least as large on
 * the wire as in memory, so neither costs more than its slot.
 */
export const VALUE_OBJECT_WORDS = 7;
export const BIN_WORDS = 47;
export const SHORT_STRING_WORDS = 6;

/**
 * Whether a str value of `length` bytes costs SHORT_STRING_WORDS of the word budget: from 2
 * bytes (the engines share empty and 1-char strings) to under SHORT_KEY_BYTES (from there a string is at
 * least as large on the wire as in memory).
 */
export function isCountedString(length: number): boolean {
  return length >= 2 && length < SHORT_KEY_BYTES;
}

/**
 * Whether the key at `at` is one a bin may stand under: `data` or `blob`. Every media field of SPEC.md 8.2 is
 * a map value under one of these keys, so a bin anywhere else (an array item, another key, the payload
 * itself) is refused while decoding, before any bin is built; the native-bytes layer then checks the whole path.
 */
export function isMediaKey(bytes: Uint8Array, at: number, length: number): boolean {
  if (length !== 4) return false;
  const b0 = bytes[at];
  return (b0 === 0x64 && matches(bytes, at, 'data')) || (b0 === 0x62 && matches(bytes, at, 'blob'));
}

/** Whether `type` is the first byte of a str (fixstr, str 8, str 16, str 32). */
export function isStrType(type: number): boolean {
  return (type >= 0xa0 && type <= 0xbf) || (type >= 0xd9 && type <= 0xdb);
}

/**
 * Whether a map key that is not a str is refused under the rule of its type rather than as a non-string key
 * (SPEC.md 4.1, "order of checks"): 0xc1, an ext type, or a bin where bins are not allowed or are allowed
 * only as a `data` or `blob` member's value (which a key never is). A key is judged at its first byte: any
 * other type is non-string-key at once, whatever bytes follow it.
 */
export function isKeyRefusedAsType(type: number, options: GuardOptions): boolean {
  if (type === 0xc1 || (type >= 0xc7 && type <= 0xc9) || (type >= 0xd4 && type <= 0xd8)) return true;
  return type >= 0xc4 && type <= 0xc6 && (!options.allowBin || options.binOnlyAtMediaKeys === true);
}

// The refusals both decode paths give (the guard, guarded-decode.ts), worded once: a payload refused by one is
// refused by the other with the same code and message (test/decode-paths.test.ts checks it).

export function truncatedValue(at: number, needed: number): string {
  return `payload ends inside a value at byte ${at} (needs ${needed} more)`;
}

export function reservedType(at: number): string {
  return `reserved type 0xc1 at byte ${at}`;
}

export function binNotNegotiated(at: number): string {
  return `bin at byte ${at}: bin is only allowed once native bytes are negotiated`;
}

export function extType(extType: number | undefined, type: number, at: number): string {
  return `ext type ${extType ?? '?'} (0x${hex(type)}) at byte ${at}: msgpack-v1 allows no ext types`;
}

export function nonFiniteFloat(bits: 32 | 64, at: number): string {
  return `float ${bits} NaN or Infinity at byte ${at}`;
}

export function nonStringKey(type: number, at: number): string {
  return `map key at byte ${at} is not a string (type 0x${hex(type)})`;
}

export function protoKey(at: number): string {
  return `map key "__proto__" at byte ${at}`;
}

export function countPastEnd(isMap: boolean, count: number, remaining: number, at: number): string {
  return `${isMap ? 'map' : 'array'} at byte ${at} claims ${count} entries but only ${remaining} bytes follow`;
}

export function tooDeep(maxDepth: number, at: number): string {
  return `nesting deeper than ${maxDepth} levels at byte ${at}`;
}

export function trailingBytes(count: number): string {
  return `${count} bytes after the end of the value`;
}

export function binOutsideMediaField(at: number): string {
  return `bin at byte ${at} outside a media field: native bytes may only stand as a "data" or "blob" member`;
}

export function overKeyBudget(overShapes: boolean, limit: number, payloadBytes: number, at: number): string {
  const what = overShapes ? 'distinct map shapes (key orders)' : 'distinct short map keys';
  return `more than ${limit} ${what} in a ${payloadBytes}-byte payload (the decode budget) at byte ${at}`;
}

export function overWordBudget(limit: number, payloadBytes: number, at: number): string {
  return `values that cost more than ${limit} words to build in a ${payloadBytes}-byte payload (the decode budget) at byte ${at}`;
}

export function overContainerBudget(limit: number, payloadBytes: number, at: number): string {
  return `more than ${limit} arrays, maps and bins in a ${payloadBytes}-byte payload (the decode budget) at byte ${at}`;
}

const PROTO_KEY = [0x5f, 0x5f, 0x70, 0x72, 0x6f, 0x74, 0x6f, 0x5f, 0x5f]; // "__proto__"

/** Whether the 9 bytes at `at` spell `__proto__`. */
export function isProtoKey(bytes: Uint8Array, at: number): boolean {
  for (let i = 0; i < 9; i++) if (bytes[at + i] !== PROTO_KEY[i]) return false;
  return true;
}

// Top-level keys the clues care about, recognised from their bytes (no string is built for them).
export const TOP_KEY_OTHER = 0;
export const TOP_KEY_ID = 1;
export const TOP_KEY_METHOD = 2;
export const TOP_KEY_RESULT_OR_ERROR = 3;

/** Which of the keys the clues care about starts at `at`: "id", "method", "result" or "error". */
export function topLevelKey(bytes: Uint8Array, at: number, length: number): number {
  const b0 = bytes[at];
  if (length === 2) return b0 === 0x69 && bytes[at + 1] === 0x64 ? TOP_KEY_ID : TOP_KEY_OTHER;
  if (length === 6) {
    if (b0 === 0x6d && matches(bytes, at, 'method')) return TOP_KEY_METHOD;
    if (b0 === 0x72 && matches(bytes, at, 'result')) return TOP_KEY_RESULT_OR_ERROR;
  } else if (length === 5 && b0 === 0x65 && matches(bytes, at, 'error')) return TOP_KEY_RESULT_OR_ERROR;
  return TOP_KEY_OTHER;
}

function matches(bytes: Uint8Array, at: number, ascii: string): boolean {
  for (let i = 0; i < ascii.length; i++) if (bytes[at + i] !== ascii.charCodeAt(i)) return false;
  return true;
}

export function hex(n: number): string {
  return n.toString(16).padStart(2, '0');
}
