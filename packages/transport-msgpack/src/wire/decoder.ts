import { Unpackr } from 'msgpackr';
import { DEFAULT_DECODE_BUDGET, DEFAULT_MAX_DEPTH, containerAllowance, shortKeyAllowance, type DecodeBudget } from './constants.js';
import { PayloadError } from './errors.js';
import { guardPayload } from './guard.js';

export interface DecoderOptions {
  /** Deepest nesting of arrays and maps accepted. Default 128; msgpackr's own recursion fails near 4,400. */
  maxDepth?: number;
  /** Accept MessagePack bin (only once the native-bytes extension is negotiated). Default false. */
  allowBin?: boolean;
  /** How many arrays and maps, and distinct short keys, a payload may hold for its size. Default DEFAULT_DECODE_BUDGET. */
  decodeBudget?: Partial<DecodeBudget>;
}

export interface DecodedPayload {
  value: unknown;
  /** True when the value holds at least one bin (a Uint8Array): the native-bytes layer has work to do. */
  containsBin: boolean;
}

/**
 * Decodes one untrusted msgpack-v1 payload into the JSON data model (bin as Uint8Array).
 *
 * msgpackr does the decoding (with its native string accelerator where it loads); guardPayload runs
 * first so that nothing msgpack-v1 forbids ever reaches it. Integers beyond 2^53 come back as the nearest
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
  private readonly budget: DecodeBudget;

  constructor(options: DecoderOptions = {}) {
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.allowBin = options.allowBin ?? false;
    this.budget = { ...DEFAULT_DECODE_BUDGET, ...options.decodeBudget };
  }

  decode(bytes: Uint8Array, allowBin = this.allowBin): DecodedPayload {
    if (bytes.length === 0) throw new PayloadError('empty-payload', 'zero-length payload: msgpack-v1 frames hold exactly one value');
    const { containsBin } = guardPayload(bytes, {
      maxDepth: this.maxDepth,
      allowBin,
      maxContainers: containerAllowance(bytes.length, this.budget),
      maxShortKeys: shortKeyAllowance(bytes.length, this.budget),
    });
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
