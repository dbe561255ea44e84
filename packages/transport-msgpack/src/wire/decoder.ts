import { Unpackr } from 'msgpackr';
import { containerAllowance, shortKeyAllowance, wordAllowance, type DecodeBudget } from './constants.js';
import { resolveReceiveLimits, type ReceiveLimits } from './receive-limits.js';
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

/** `maxDepth` (default 128; msgpackr's own recursion fails near 4,400) and `decodeBudget` as in ReceiveLimits. */
export interface DecoderOptions extends Pick<ReceiveLimits, 'maxDepth' | 'decodeBudget'> {
  /** Accept MessagePack bin (only once the native-bytes extension is negotiated). Default false. */
  allowBin?: boolean;
  /** Bin only as the value of a `data` or `blob` member (GuardOptions.binOnlyAtMediaKeys). Default false. */
  binOnlyAtMediaKeys?: boolean;
  /**
   * Which decode path to use. Default 'guard-then-msgpackr'; the transports pass their runtime's choice
   * (runtime/, `decodePath`), and `mcp-msgpack-transport/wire`'s MsgpackDecoder defaults to it.
   */
  decodePath?: DecodePath;
  /**
   * On the single pass, cut short ASCII strings from a latin1 window over the payload (short-ascii.ts) rather
   * than building them char by char. Needs a Buffer (latin1Slice). Default false; runtime/ says where it pays.
   */
  asciiWindow?: boolean;
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
  private readonly asciiWindow: boolean;

  constructor(options: DecoderOptions = {}) {
    const limits = resolveReceiveLimits(options);
    this.maxDepth = limits.maxDepth;
    this.allowBin = options.allowBin ?? false;
    this.binOnlyAtMediaKeys = options.binOnlyAtMediaKeys ?? false;
    this.budget = limits.decodeBudget;
    this.singlePass = options.decodePath === 'single-pass';
    this.asciiWindow = options.asciiWindow ?? false;
  }

  decode(bytes: Uint8Array, allowBin = this.allowBin): DecodedPayload {
    if (bytes.length === 0) throw new PayloadError('empty-payload', 'zero-length payload: msgpack-v1 frames hold exactly one value');
    const guard: GuardOptions = {
      maxDepth: this.maxDepth,
      allowBin,
      binOnlyAtMediaKeys: this.binOnlyAtMediaKeys,
      maxContainers: containerAllowance(bytes.length, this.budget),
      maxShortKeys: shortKeyAllowance(bytes.length, this.budget),
      maxWords: wordAllowance(bytes.length, this.budget),
    };
    if (this.singlePass) {
      // Each array or map takes a byte, so only a payload longer than its allowance can break the container
      // budget. Such a payload is scanned first, so that a refused one builds nothing (a 60 MiB frame of empty
      // maps would otherwise build millions of objects before the breach is found); the walk then has nothing
      // to count. A shorter one is counted as it is built: refused on the words it builds (8 a byte at most),
      // it has built no more than its allowance, a few MB.
      if (bytes.length <= guard.maxContainers) return guardedDecode(bytes, guard, this.asciiWindow);
      guardPayload(bytes, guard);
      return guardedDecode(bytes, { ...guard, maxContainers: Infinity, maxShortKeys: undefined, maxWords: Infinity }, this.asciiWindow);
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
