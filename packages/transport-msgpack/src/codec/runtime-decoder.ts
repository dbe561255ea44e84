import { runtime } from '../runtime/current.js';
import { MsgpackDecoder, type DecodePath, type DecoderOptions } from '../wire/decoder.js';

/**
 * The decode path this runtime takes (runtime/, `decodePath`): both refuse and build the same, and each
 * runtime takes the one measured faster on it (`mcp-msgpack-bench --full --scenario codec`).
 */
export const DEFAULT_DECODE_PATH: DecodePath = runtime.decodePath;

/** The wire's decoder with its runtime facts filled in: what the transports (and the benchmark) decode with. */
export class RuntimeMsgpackDecoder extends MsgpackDecoder {
  constructor(options: DecoderOptions = {}) {
    super({ ...options, decodePath: options.decodePath ?? runtime.decodePath, asciiWindow: options.asciiWindow ?? runtime.shortAsciiFromWindow });
  }
}
