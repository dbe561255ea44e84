import { Unpackr } from 'msgpackr';
import { isBun } from '../runtime/current.js';
import { DEFAULT_DECODE_BUDGET, DEFAULT_MAX_DEPTH, containerAllowance, shortKeyAllowance, type DecodeBudget } from './constants.js';
import { PayloadError } from './errors.js';
import { guardPayload } from './guard.js';
import type { GuardOptions } from './guard-rules.js';
import { guardedDecode } from './guarded-decode.js';

/**
 * How a payload is checked and built; both refuse the same payloads with the same errors and build the same
 * values. 'guard-then-msgpackr': guardPayload scans, then msgpackr decodes. 'single-pass': guardedDecode
 * checks and builds in one walk.
 */
export type DecodePath = 'guard-then-msgpackr' | 'single-pass';

/**
 * The path each runtime uses, measured side by side (`mcp-msgpack-bench --full --scenario codec`, README
 * "Decoding: one pass or two"). Bun: the single pass, which takes about 0.6x guard + msgpackr's decode time
 * for small messages, 0.7x for 50 KB objects and, with short ASCII strings cut from a latin1 window
 * (short-ascii.ts), 0.73-0.97x for many short strings. Node: guard + msgpackr; the single pass wins there
 * for small messages and 50 KB objects but loses for many short strings (1.15x) and at 1 MB (1.07x).
 */
export const DEFAULT_DECODE_PATH: DecodePath = isBun ? 'single-pass' : 'guard-then-msgpackr';

export interface DecoderOptions {
  /** Deepest nesting of arrays and maps accepted. Default 128; msgpackr's own recursion fails near 4,400. */
  maxDepth?: number;
  /** Accept MessagePack bin (only once the native-bytes extension is negotiated). Default false. */
  allowBin?: boolean;
  /** How many arrays and maps, and distinct short keys, a payload may hold for its size. Default DEFAULT_DECODE_BUDGET. */
  decodeBudget?: Partial<DecodeBudget>;
  /** Bin only as the value of a `data` or `blob` member (GuardOptions.binOnlyAtMediaKeys). Default false. */
  binOnlyAtMediaKeys?: boolean;
  /** Which decode path to use. Default DEFAULT_DECODE_PATH (per runtime); the other is there to be compared. */
  decodePath?: DecodePath;
}

export interface DecodedPayload {
  value: unknown;
  /** True when the value holds at least one bin (a Uint8Array): the native-bytes layer has work to do. */
  containsBin: boolean;
}

/**
 * Decodes one untrusted msgpack-v1 payload into the JSON data model (bin as Uint8Array), refusing everything
 * SPEC.md section 4.1 refuses before any of it is built. Integers beyond 2^53 come back as the nearest
 * number, as JSON.parse gives them. A bin value is a view of `bytes`: the caller must not reuse them.
 */
export class MsgpackDecoder {
  private readonly unpackr = new Unpackr({
    useRecords: false,
    mapsAsObjects: true,
    int64AsType: 'number',
    moreTypes: false,
  });
  private readonly maxDepth: number;
  private readonly allowBin: boolean;
  private readonly binOnlyAtMediaKeys: boolean;
  private readonly budget: DecodeBudget;
  private readonly singlePass: boolean;

  constructor(options: DecoderOptions = {}) {
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.allowBin = options.allowBin ?? false;
    this.binOnlyAtMediaKeys = options.binOnlyAtMediaKeys ?? false;
    this.budget = { ...DEFAULT_DECODE_BUDGET, ...options.decodeBudget };
    this.singlePass = (options.decodePath ?? DEFAULT_DECODE_PATH) === 'single-pass';
  }

  decode(bytes: Uint8Array, allowBin = this.allowBin): DecodedPayload {
    if (bytes.length === 0) throw new PayloadError('empty-payload', 'zero-length payload: msgpack-v1 frames hold exactly one value');
    const guard: GuardOptions = {
      maxDepth: this.maxDepth,
      allowBin,
      binOnlyAtMediaKeys: this.binOnlyAtMediaKeys,
      maxContainers: containerAllowance(bytes.length, this.budget),
      maxShortKeys: shortKeyAllowance(bytes.length, this.budget),
    };
    if (this.singlePass) {
      // Each array or map takes a byte, so only a payload longer than its allowance can break the budget. Such
      // a payload is scanned first, so that a refused one builds nothing (a 60 MiB frame of empty maps would
      // otherwise build millions of objects before the breach is found); the walk then has nothing to count.
      if (bytes.length <= guard.maxContainers) return guardedDecode(bytes, guard);
      guardPayload(bytes, guard);
      return guardedDecode(bytes, { ...guard, maxContainers: Infinity, maxShortKeys: undefined });
    }
    // guardPayload runs first so that nothing msgpack-v1 forbids ever reaches msgpackr, which honours its
    // private ext types, recurses without limit and trusts length headers.
    const { containsBin } = guardPayload(bytes, guard);
    let value: unknown;
    try {
      value = this.unpackr.unpack(bytes);
    } catch (error) {
      // The guard accepted the structure, so this is unexpected; still, never let it escape unexplained.
      throw new PayloadError('malformed-msgpack', `MessagePack decode failed: ${(error as Error).message}`);
    }
    return { value, containsBin };
  }
}
