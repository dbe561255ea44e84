import { KeyBudget, OVER_SHAPES } from './key-budget.js';
import { PayloadError, type MessageClues, type PayloadErrorCode } from './errors.js';
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
  TOP_KEY_OTHER,
  TOP_KEY_RESULT_OR_ERROR,
  isProtoKey,
  isKeyRefusedAsType,
  isStrType,
  topLevelKey,
  type GuardOptions,
} from './guard-rules.js';

export type { GuardOptions } from './guard-rules.js';

/**
 * One pass over an untrusted payload, before any decoder sees it (SPEC.md, "Receiving").
 *
 * msgpackr always honours its private extensions (records, RegExp, Error, references, ...), recurses
 * without a depth limit and trusts length headers. This scan makes those paths unreachable: it refuses
 * every ext type and 0xc1, NaN and the infinities, refuses bin unless the native-bytes extension allows it, requires string map
 * keys other than `__proto__`, limits nesting without recursion, rejects any array or map header that
 * claims more items than there are bytes left, and counts arrays and maps against the decode budget, so
 * decoding N bytes costs time linear in N and memory a small multiple of N.
 *
 * On the way it notes the top-level `id` and whether `method`, `result` or `error` keys were seen, so a
 * receiver can still answer or fail the right request when the rest of the message is bad.
 */

export interface GuardResult extends MessageClues {
  containsBin: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** Scans `bytes` (one complete MessagePack value) and throws a PayloadError on anything msgpack-v1 refuses. */
export function guardPayload(bytes: Uint8Array, options: GuardOptions): GuardResult {
  const clues: GuardResult = { hasMethod: false, hasResultOrError: false, containsBin: false };
  const end = bytes.length;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // remaining[d]: values still to read in the container at depth d; keyNext[d]: is the next value a map key.
  const remaining: number[] = [1];
  const isMap: boolean[] = [false];
  // mediaKey[d]: the key just read in the map at depth d is `data` or `blob`, where a bin may stand.
  const mediaKey: boolean[] = [false];
  let depth = 0;
  let pos = 0;
  let containers = 0;
  let words = 0;
  const maxWords = options.maxWords ?? Infinity;
  const maxShortKeys = options.maxShortKeys ?? Infinity;
  const keyBudget = maxShortKeys === Infinity ? undefined : new KeyBudget(bytes, maxShortKeys);
  // shape[d]: the shape (KeyBudget) of the map at depth d so far.
  const shape: number[] = [0];
  // Top-level map bookkeeping, for the clues.
  let topKey = TOP_KEY_OTHER;
  let topIsMap = false;

  const fail = (code: PayloadErrorCode, message: string): never => {
    throw new PayloadError(code, message, { id: clues.id, hasMethod: clues.hasMethod, hasResultOrError: clues.hasResultOrError });
  };
  const need = (n: number): void => {
    if (pos + n > end) fail('malformed-msgpack', truncatedValue(pos, n));
  };
  const u8 = (): number => {
    need(1);
    return bytes[pos++]!;
  };
  const u16 = (): number => {
    need(2);
    const v = view.getUint16(pos);
    pos += 2;
    return v;
  };
  const u32 = (): number => {
    need(4);
    const v = view.getUint32(pos);
    pos += 4;
    return v;
  };

  while (depth >= 0) {
    if (remaining[depth] === 0) {
      depth--;
      continue;
    }
    remaining[depth]!--;
    // Within a map, values alternate key, value; remaining counts both, so keys sit at odd counts left.
    const atKey = isMap[depth] === true && remaining[depth]! % 2 === 1;
    const atTopValue = topIsMap && depth === 1 && !atKey;
    const valueStart = pos;
    // Every value but a key takes a word of the budget (its slot), counted before its header is read.
    if (!atKey && ++words > maxWords) fail('over-budget', overWordBudget(maxWords, end, valueStart));
    const type = u8();
    // A key is judged at its first byte (SPEC.md 4.1, "order of checks"): a type refused everywhere (ext, 0xc1,
    // a bin) is reported as that type below; any other non-str is non-string-key before anything after it is read.
    if (atKey && !isStrType(type) && !isKeyRefusedAsType(type, options)) fail('non-string-key', nonStringKey(type, valueStart));

    let strLength = -1;
    let childCount = -1;
    let childIsMap = false;
    if (type <= 0x7f || type >= 0xe0) {
      // fixint
    } else if (type <= 0x8f) {
      childCount = type & 0x0f;
      childIsMap = true;
    } else if (type <= 0x9f) {
      childCount = type & 0x0f;
    } else if (type <= 0xbf) {
      strLength = type & 0x1f;
    } else {
      switch (type) {
        case 0xc0:
        case 0xc2:
        case 0xc3:
          break;
        case 0xc1:
          fail('forbidden-type', reservedType(valueStart));
          break;
        case 0xc4:
        case 0xc5:
        case 0xc6: {
          if (!options.allowBin) {
            fail('forbidden-type', binNotNegotiated(valueStart));
          }
          if (options.binOnlyAtMediaKeys === true && (atKey || isMap[depth] !== true || mediaKey[depth] !== true)) fail('forbidden-type', binOutsideMediaField(valueStart));
          const length = type === 0xc4 ? u8() : type === 0xc5 ? u16() : u32();
          need(length);
          // A bin is built as an object (a view of the payload), so it counts as a container does.
          if (++containers > options.maxContainers) fail('over-budget', overContainerBudget(options.maxContainers, end, valueStart));
          if ((words += BIN_WORDS) > maxWords) fail('over-budget', overWordBudget(maxWords, end, valueStart));
          pos += length;
          clues.containsBin = true;
          break;
        }
        case 0xc7:
        case 0xc8:
        case 0xc9:
        case 0xd4:
        case 0xd5:
        case 0xd6:
        case 0xd7:
        case 0xd8: {
          const extType = type >= 0xd4 ? bytes[pos] : bytes[pos + (type === 0xc7 ? 1 : type === 0xc8 ? 2 : 4)];
          fail('forbidden-type', extTypeRefusal(extType, type, valueStart));
          break;
        }
        case 0xca:
          need(4);
          // All-ones exponent: NaN or an infinity, which the JSON data model cannot hold.
          if ((bytes[pos]! & 0x7f) === 0x7f && (bytes[pos + 1]! & 0x80) === 0x80) fail('non-finite-number', nonFiniteFloat(32, valueStart));
          pos += 4;
          break;
        case 0xcb:
          need(8);
          if ((bytes[pos]! & 0x7f) === 0x7f && (bytes[pos + 1]! & 0xf0) === 0xf0) fail('non-finite-number', nonFiniteFloat(64, valueStart));
          pos += 8;
          break;
        case 0xcf:
        case 0xd3:
          need(8);
          pos += 8;
          break;
        case 0xcc:
        case 0xd0:
          need(1);
          pos += 1;
          break;
        case 0xcd:
        case 0xd1:
          need(2);
          pos += 2;
          break;
        case 0xce:
        case 0xd2:
          need(4);
          pos += 4;
          break;
        case 0xd9:
          strLength = u8();
          break;
        case 0xda:
          strLength = u16();
          break;
        case 0xdb:
          strLength = u32();
          break;
        case 0xdc:
          childCount = u16();
          break;
        case 0xdd:
          childCount = u32();
          break;
        case 0xde:
          childCount = u16();
          childIsMap = true;
          break;
        case 0xdf:
          childCount = u32();
          childIsMap = true;
          break;
      }
    }

    if (strLength >= 0) {
      need(strLength);
      if (!atKey && isCountedString(strLength) && (words += SHORT_STRING_WORDS) > maxWords) fail('over-budget', overWordBudget(maxWords, end, valueStart));
      if (atKey) mediaKey[depth] = isMediaKey(bytes, pos, strLength);
      if (atKey) {
        if (strLength === 9 && isProtoKey(bytes, pos)) fail('forbidden-key', protoKey(valueStart));
        if (keyBudget !== undefined) {
          const next = keyBudget.step(shape[depth]!, pos, strLength, strLength < SHORT_KEY_BYTES);
          if (next < 0) fail('over-budget', overKeyBudget(next === OVER_SHAPES, maxShortKeys, end, valueStart));
          shape[depth] = next;
        }
      }
      if (topIsMap && depth === 1) {
        if (atKey) {
          topKey = topLevelKey(bytes, pos, strLength);
          // Noted at the key, so a message whose `method` or `result` value is itself bad still counts.
          if (topKey === TOP_KEY_METHOD) clues.hasMethod = true;
          else if (topKey === TOP_KEY_RESULT_OR_ERROR) clues.hasResultOrError = true;
        } else if (topKey === TOP_KEY_ID) clues.id = utf8.decode(bytes.subarray(pos, pos + strLength));
      }
      pos += strLength;
    } else if (atTopValue && topKey === TOP_KEY_ID && childCount < 0) {
      const id = readInteger(view, valueStart, type);
      // Only an id JSON-RPC allows (a safe integer) can be echoed back faithfully.
      if (id !== undefined && Number.isSafeInteger(id)) clues.id = id;
    }

    if (childCount >= 0) {
      const values = childIsMap ? childCount * 2 : childCount;
      // Every value takes at least one byte: a header that claims more than is left is a lie.
      if (values > end - pos) {
        fail('malformed-msgpack', countPastEnd(childIsMap, childCount, end - pos, valueStart));
      }
      if (depth + 1 > options.maxDepth) {
        fail('too-deep', tooDeep(options.maxDepth, valueStart));
      }
      if (++containers > options.maxContainers) {
        fail('over-budget', overContainerBudget(options.maxContainers, end, valueStart));
      }
      if ((words += VALUE_OBJECT_WORDS) > maxWords) {
        fail('over-budget', overWordBudget(maxWords, end, valueStart));
      }
      if (depth === 0 && childIsMap) topIsMap = true;
      depth++;
      remaining[depth] = values;
      isMap[depth] = childIsMap;
      mediaKey[depth] = false;
      shape[depth] = 0;
    }
  }
  if (pos !== end) fail('malformed-msgpack', trailingBytes(end - pos));
  return clues;
}

/** Reads an integer id (header at `at`) if it is one; the bytes were bounds-checked already. */
function readInteger(view: DataView, at: number, type: number): number | undefined {
  if (type <= 0x7f) return type;
  if (type >= 0xe0) return type - 0x100;
  switch (type) {
    case 0xcc:
      return view.getUint8(at + 1);
    case 0xcd:
      return view.getUint16(at + 1);
    case 0xce:
      return view.getUint32(at + 1);
    case 0xcf:
      return Number(view.getBigUint64(at + 1));
    case 0xd0:
      return view.getInt8(at + 1);
    case 0xd1:
      return view.getInt16(at + 1);
    case 0xd2:
      return view.getInt32(at + 1);
    case 0xd3:
      return Number(view.getBigInt64(at + 1));
    default:
      return undefined;
  }
}
