import { KeyBudget, OVER_SHAPES } from './key-budget.js';
import { PayloadError, type PayloadErrorCode } from './errors.js';
import { asciiFromCodes, asciiFromWindow, forgetWindow, type Latin1Slicing } from './short-ascii.js';
import {
  SHORT_KEY_BYTES,
  binNotNegotiated,
  binOutsideMediaField,
  countPastEnd,
  extType as extTypeRefusal,
  nonFiniteFloat,
  nonStringKey,
  protoKey,
  reservedType,
  tooDeep,
  trailingBytes,
  truncatedValue,
  isMediaKey,
  overContainerBudget,
  overKeyBudget,
  overWordBudget,
  isCountedString,
  SHORT_STRING_WORDS,
  VALUE_OBJECT_WORDS,
  BIN_WORDS,
  TOP_KEY_ID,
  TOP_KEY_METHOD,
  TOP_KEY_RESULT_OR_ERROR,
  isProtoKey,
  isKeyRefusedAsType,
  topLevelKey,
  type GuardOptions,
} from './guard-rules.js';
import { Buffer } from '../runtime/buffer.js';

/**
 * One pass over an untrusted payload that checks and builds at once: the same refusals as guardPayload
 * (same PayloadError codes, messages and clues, found at the same byte, since both walk the bytes in order),
 * and the same value as the guard followed by msgpackr (bin as views of `bytes`, int 64 as the nearest
 * number). Nothing is built from a refused construct: every check runs before the value it guards is made.
 *
 * Recursive, like msgpackr: maxDepth bounds the recursion; a maxDepth the engine's stack cannot hold
 * fails as malformed-msgpack, as msgpackr's own stack overflow did behind the guard.
 */

export interface GuardedDecodeResult {
  value: unknown;
  containsBin: boolean;
}

// The payload being decoded. Module state rather than a class: a decode runs no user code, so it cannot be
// re-entered, and plain variables keep the hot loop free of property loads.
let src: Uint8Array = new Uint8Array(0);
let view: DataView | undefined;
let pos = 0;
let end = 0;
let options: GuardOptions;
let containers = 0;
// Words of built values so far, and the most allowed (the decode budget, counted as guardPayload counts it).
let words = 0;
let maxWords = Infinity;
let containsBin = false;
// Whether the value about to be read is a map member under `data` or `blob`, the only place a bin may stand.
let atMediaKey = false;
let keyBudget: KeyBudget | undefined;
// The shape (KeyBudget) of the map whose key readKey reads, before and after it.
let shape = 0;
// Clues for a refused message, as guardPayload gathers them (top-level map only).
let clueId: string | number | undefined;
let clueMethod = false;
let clueResultOrError = false;
let fromWindow = false;

/**
 * Decodes one msgpack-v1 payload, refusing what guardPayload refuses. `bytes` must not be empty.
 * `asciiWindow`: cut short ASCII strings from a latin1 window (short-ascii.ts), where the runtime says it pays.
 */
export function guardedDecode(bytes: Uint8Array, guard: GuardOptions, asciiWindow = false): GuardedDecodeResult {
  src = bytes;
  fromWindow = asciiWindow;
  view = undefined;
  textView = undefined;
  forgetWindow();
  pos = 0;
  end = bytes.length;
  options = guard;
  containers = 0;
  words = 0;
  maxWords = guard.maxWords ?? Infinity;
  containsBin = false;
  atMediaKey = false;
  keyBudget = guard.maxShortKeys === undefined || guard.maxShortKeys === Infinity ? undefined : new KeyBudget(bytes, guard.maxShortKeys);
  clueId = undefined;
  clueMethod = false;
  clueResultOrError = false;
  let value: unknown;
  try {
    value = readPayload();
  } catch (error) {
    if (error instanceof PayloadError) throw error;
    throw refusal('malformed-msgpack', `MessagePack decode failed: ${(error as Error).message}`);
  } finally {
    src = new Uint8Array(0); // hold no reference to the caller's bytes
    keyBudget = undefined;
    view = undefined;
    textView = undefined;
    forgetWindow();
  }
  if (pos !== end) throw refusal('malformed-msgpack', trailingBytes(end - pos));
  return { value, containsBin };
}

function refusal(code: PayloadErrorCode, message: string): PayloadError {
  return new PayloadError(code, message, { id: clueId, hasMethod: clueMethod, hasResultOrError: clueResultOrError });
}

function fail(code: PayloadErrorCode, message: string): never {
  throw refusal(code, message);
}

/** Counts `n` words of built values for the value whose header is at `start`. */
function addWords(n: number, start: number): void {
  if ((words += n) > maxWords) fail('over-budget', overWordBudget(maxWords, end, start));
}

function need(n: number): void {
  if (pos + n > end) fail('malformed-msgpack', truncatedValue(pos, n));
}

function u16(): number {
  need(2);
  const v = (src[pos]! << 8) | src[pos + 1]!;
  pos += 2;
  return v;
}

function u32(): number {
  need(4);
  const v = src[pos]! * 0x1000000 + ((src[pos + 1]! << 16) | (src[pos + 2]! << 8) | src[pos + 3]!);
  pos += 4;
  return v;
}

function dataView(): DataView {
  return (view ??= new DataView(src.buffer, src.byteOffset, src.byteLength));
}

/** One value at `depth` containers deep (0: the payload itself). */
function readValue(depth: number): unknown {
  const start = pos;
  addWords(1, start);
  need(1);
  const type = src[pos++]!;
  if (type <= 0x7f) return type;
  if (type <= 0x8f) return readMap(type & 0x0f, depth, start);
  if (type <= 0x9f) return readArray(type & 0x0f, depth, start);
  if (type <= 0xbf) return readStringValue(type & 0x1f, start);
  if (type >= 0xe0) return type - 0x100;
  let v: number;
  switch (type) {
    case 0xc0:
      return null;
    case 0xc2:
      return false;
    case 0xc3:
      return true;
    case 0xc4:
    case 0xc5:
    case 0xc6: {
      if (!options.allowBin) fail('forbidden-type', binNotNegotiated(start));
      if (!atMediaKey && options.binOnlyAtMediaKeys === true) fail('forbidden-type', binOutsideMediaField(start));
      const length = type === 0xc4 ? (need(1), src[pos++]!) : type === 0xc5 ? u16() : u32();
      need(length);
      // A bin is built as an object (a view of the payload), so it counts as a container does.
      if (++containers > options.maxContainers) fail('over-budget', overContainerBudget(options.maxContainers, end, start));
      addWords(BIN_WORDS, start);
      containsBin = true;
      return src.subarray(pos, (pos += length));
    }
    case 0xca:
      need(4);
      // All-ones exponent: NaN or an infinity, which the JSON data model cannot hold.
      if ((src[pos]! & 0x7f) === 0x7f && (src[pos + 1]! & 0x80) === 0x80) fail('non-finite-number', nonFiniteFloat(32, start));
      v = dataView().getFloat32(pos);
      pos += 4;
      return v;
    case 0xcb:
      need(8);
      if ((src[pos]! & 0x7f) === 0x7f && (src[pos + 1]! & 0xf0) === 0xf0) fail('non-finite-number', nonFiniteFloat(64, start));
      v = dataView().getFloat64(pos);
      pos += 8;
      return v;
    case 0xcc:
      need(1);
      return src[pos++]!;
    case 0xcd:
      return u16();
    case 0xce:
      return u32();
    case 0xcf:
      need(8);
      // Both halves are exact, so the sum is rounded once: the nearest number, as JSON.parse gives it.
      v = dataView().getUint32(pos) * 0x1_0000_0000 + dataView().getUint32(pos + 4);
      pos += 8;
      return v;
    case 0xd0:
      need(1);
      return (src[pos++]! << 24) >> 24;
    case 0xd1:
      need(2);
      v = ((src[pos]! << 24) >> 16) | src[pos + 1]!;
      pos += 2;
      return v;
    case 0xd2:
      need(4);
      v = (src[pos]! << 24) | (src[pos + 1]! << 16) | (src[pos + 2]! << 8) | src[pos + 3]!;
      pos += 4;
      return v;
    case 0xd3:
      need(8);
      v = dataView().getInt32(pos) * 0x1_0000_0000 + dataView().getUint32(pos + 4);
      pos += 8;
      return v;
    case 0xd9:
      need(1);
      return readStringValue(src[pos++]!, start);
    case 0xda:
      return readStringValue(u16(), start);
    case 0xdb:
      return readStringValue(u32(), start);
    case 0xdc:
      return readArray(u16(), depth, start);
    case 0xdd:
      return readArray(u32(), depth, start);
    case 0xde:
      return readMap(u16(), depth, start);
    case 0xdf:
      return readMap(u32(), depth, start);
    case 0xc1:
      return fail('forbidden-type', reservedType(start));
    default: {
      // ext 8/16/32 (c7-c9) and fixext (d4-d8): the type number follows the length, if there is one.
      const extType = type >= 0xd4 ? src[pos] : src[pos + (type === 0xc7 ? 1 : type === 0xc8 ? 2 : 4)];
      return fail('forbidden-type', extTypeRefusal(extType, type, start));
    }
  }
}

/** The checks every array or map header passes before anything is built for it. */
function enterContainer(values: number, isMap: boolean, count: number, depth: number, start: number): void {
  // Every value takes at least one byte: a header that claims more than is left is a lie.
  if (values > end - pos) fail('malformed-msgpack', countPastEnd(isMap, count, end - pos, start));
  if (depth + 1 > options.maxDepth) fail('too-deep', tooDeep(options.maxDepth, start));
  if (++containers > options.maxContainers) fail('over-budget', overContainerBudget(options.maxContainers, end, start));
  addWords(VALUE_OBJECT_WORDS, start);
}

function readArray(count: number, depth: number, start: number): unknown[] {
  enterContainer(count, false, count, depth, start);
  const array = new Array<unknown>(count);
  for (let i = 0; i < count; i++) {
    atMediaKey = false;
    array[i] = readValue(depth + 1);
  }
  return array;
}

function readMap(count: number, depth: number, start: number): Record<string, unknown> {
  enterContainer(count * 2, true, count, depth, start);
  const object: Record<string, unknown> = {};
  let mapShape = 0;
  for (let i = 0; i < count; i++) {
    shape = mapShape;
    const key = readKey();
    mapShape = shape;
    atMediaKey = isMediaKey(src, pos - keyLength, keyLength);
    object[key] = readValue(depth + 1);
  }
  return object;
}

/** The payload's value; when it is a map (a message), readTopMap gathers the clues on the way. */
function readPayload(): unknown {
  const type = src[0]!;
  // The payload's own value takes a word, as every value does (readValue counts the others).
  if (type >= 0x80 && type <= 0x8f) addWords(1, 0);
  else if (type === 0xde || type === 0xdf) addWords(1, 0);
  if (type >= 0x80 && type <= 0x8f) return (pos++, readTopMap(type & 0x0f));
  if (type === 0xde) return (pos++, readTopMap(u16()));
  if (type === 0xdf) return (pos++, readTopMap(u32()));
  return readValue(0);
}

/** The payload's own map, which also gathers the clues: its `id`, and whether it has `method`, `result` or `error`. */
function readTopMap(count: number): Record<string, unknown> {
  enterContainer(count * 2, true, count, 0, 0);
  const object: Record<string, unknown> = {};
  let mapShape = 0;
  for (let i = 0; i < count; i++) {
    shape = mapShape;
    const key = readKey();
    mapShape = shape;
    const which = topLevelKey(src, pos - keyLength, keyLength);
    // Noted at the key, so a message whose `method` or `result` value is itself bad still counts.
    if (which === TOP_KEY_METHOD) clueMethod = true;
    else if (which === TOP_KEY_RESULT_OR_ERROR) clueResultOrError = true;
    const valueType = pos < end ? src[pos]! : 0xc0;
    atMediaKey = isMediaKey(src, pos - keyLength, keyLength);
    const value = readValue(1);
    // Only an id JSON-RPC allows (a string, or a safe integer from an int type) can be echoed back faithfully.
    if (which === TOP_KEY_ID && (typeof value === 'string' || (isIntType(valueType) && Number.isSafeInteger(value)))) clueId = value as string | number;
    object[key] = value;
  }
  return object;
}

function isIntType(type: number): boolean {
  return type <= 0x7f || type >= 0xe0 || (type >= 0xcc && type <= 0xd3 && type !== 0xca && type !== 0xcb);
}

// The byte length of the key readKey returned last (its bytes end at pos).
let keyLength = 0;

/** A map key: a str other than `__proto__`, counted against the short-key budget when that applies. */
function readKey(): string {
  const start = pos;
  need(1);
  const type = src[pos++]!;
  let length: number;
  if (type >= 0xa0 && type <= 0xbf) length = type & 0x1f;
  else if (type === 0xd9) length = (need(1), src[pos++]!);
  else if (type === 0xda) length = u16();
  else if (type === 0xdb) length = u32();
  else return refuseKey(type, start);
  need(length);
  keyLength = length;
  if (length === 9 && isProtoKey(src, pos)) fail('forbidden-key', protoKey(start));
  if (keyBudget !== undefined) {
    shape = keyBudget.step(shape, pos, length, length < SHORT_KEY_BYTES);
    if (shape < 0) fail('over-budget', overKeyBudget(shape === OVER_SHAPES, keyBudget.limit, end, start));
  }
  return length < SHORT_KEY_BYTES ? shortKey(length) : readString(length);
}

/**
 * A key that is not a str, judged at its first byte (SPEC.md 4.1, "order of checks"): a type refused everywhere
 * (ext, 0xc1, a bin, as guardPayload decides with isKeyRefusedAsType) is refused as that type, by readValue;
 * any other is non-string-key, whatever follows it.
 */
function refuseKey(type: number, start: number): never {
  if (isKeyRefusedAsType(type, options)) {
    pos = start;
    atMediaKey = false;
    // A key takes no word of its own: readValue counts one, so it is given back first.
    words--;
    readValue(0);
  }
  return fail('non-string-key', nonStringKey(type, start));
}

// Short ASCII keys repeat from message to message: one string per distinct key, found again by a cheap
// hash of its bytes and confirmed char by char, saves building it and the engine interning it again.
const KEY_CACHE_SIZE = 4096;
const keyCache: (string | undefined)[] = new Array<string | undefined>(KEY_CACHE_SIZE).fill(undefined);

function shortKey(length: number): string {
  const at = pos;
  if (length === 0) return '';
  const slot = (length * 0x9e5 + src[at]! * 0x3b + src[at + length - 1]! * 7 + src[at + (length >> 1)]!) & (KEY_CACHE_SIZE - 1);
  const cached = keyCache[slot];
  if (cached !== undefined && cached.length === length) {
    let same = true;
    for (let i = 0; i < length; i++) {
      if (cached.charCodeAt(i) !== src[at + i]) {
        same = false;
        break;
      }
    }
    if (same) {
      pos += length;
      return cached;
    }
  }
  // A key of its own, not cut from a window: the cache keeps it for good.
  const key = readString(length, true);
  // Only an ASCII key has one char per byte, which the comparison above relies on.
  if (key.length === length) keyCache[slot] = key;
  return key;
}

/** A str value (not a key): one of 2 to 15 bytes also costs the words of its string, checked once its bytes are there. */
function readStringValue(length: number, start: number): string {
  if (isCountedString(length)) {
    need(length);
    addWords(SHORT_STRING_WORDS, start);
  }
  return readString(length);
}

/**
 * A str of `length` bytes. Short ASCII strings (most keys and enum-like values) are built as short-ascii.ts
 * says, from a window if the caller asked for one; `own` asks for a string that shares no window (one kept for long). Everything else goes
 * to the runtime's UTF-8 decoder through a Buffer view, which replaces ill-formed sequences as TextDecoder
 * does (SPEC.md 3.3) and, on Node and Bun, costs less per call than TextDecoder.decode.
 */
function readString(length: number, own = false): string {
  need(length);
  const at = pos;
  pos += length;
  if (length <= SHORT_STRING_BYTES) {
    let bits = 0;
    for (let i = at; i < at + length; i++) bits |= src[i]!;
    if (bits < 0x80) return fromWindow && !own ? asciiFromWindow(payloadText(), end, at, length) : asciiFromCodes(src, at, length);
  }
  return payloadText().utf8Slice(at, at + length);
}

const SHORT_STRING_BYTES = 16;

interface PayloadText extends Latin1Slicing {
  utf8Slice(start: number, end: number): string;
}

// A Buffer over the payload, made once per payload and only when a string needs it.
let textView: PayloadText | undefined;

function payloadText(): PayloadText {
  return (textView ??= Buffer.from(src.buffer, src.byteOffset, src.byteLength) as unknown as PayloadText);
}
