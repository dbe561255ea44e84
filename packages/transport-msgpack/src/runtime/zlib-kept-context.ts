import * as zlib from 'node:zlib';

// One node:zlib context kept for the process and reset after each reply, as a one-shot coder with the bytes
// of node:zlib's own one-shot call for the same options. A one-shot call (deflateRawSync, zstdCompressSync)
// makes a zlib object, its native state and an output buffer for every reply; on small and mid-size replies
// that set-up is much of the cost (docs/MEASUREMENTS.md, issue 41: the dictionary coding's deflate 9-15 µs a
// reply one-shot against 6.5 kept, "Bun's coder CPU"; zstd 3 on the filesystem session's replies of 256 B-8
// KiB 237 against 34 µs a session on Node 24, "The server CPU target on Node 22, 24 and Bun").
//
// node:zlib has no public one-shot call on a kept context (a stream's sync write closes it at its end flag),
// so this drives the zlib object's handle as node:zlib's own zlibBufferSync does: `_handle.writeSync` and
// `_writeState`. The reset keeps the options (node:zlib sets a deflate dictionary again after deflateReset;
// zstd's session reset keeps its parameters): checked when the coder is made, on every runtime. Where a
// runtime lacks these parts, or the check's bytes differ, or a call fails, the coder uses the one-shot call
// for good. The zlib object is held by the coder's closure: its handle must not be collected with it.

/** The parts of a node:zlib object's handle used here (lib/zlib.js's processChunkSync uses the same). */
interface ZlibHandle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  reset(): void;
}
interface ZlibInternals {
  readonly _handle?: ZlibHandle | null;
  readonly _writeState?: Uint32Array;
  readonly destroyed?: boolean;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** A coder on a kept context, described by what node:zlib offers for it. */
export interface KeptContextSpec {
  /** A new zlib object with the coder's options. */
  readonly make: () => object;
  /** The flush that ends the input in one write (Z_FINISH, ZSTD_e_end). */
  readonly finish: number;
  /** node:zlib's one-shot call with the same options: the reference bytes, and the coder for what the kept context does not take. */
  readonly oneShot: (bytes: Uint8Array) => Uint8Array;
  /**
   * Inputs up to this size go through the kept context, larger ones one-shot: the context's state and its
   * output buffer (sized for the worst case at this size) stay resident for the process, so they are bounded.
   */
  readonly maxInput: number;
  /** Bytes the check codes twice, on the new context and on it reset, against `oneShot`'s. */
  readonly probe: Uint8Array;
}

/** A one-shot coder with `spec.oneShot`'s bytes, through one kept context where the runtime allows it. */
export function keptContextCoder(spec: KeptContextSpec): (bytes: Uint8Array) => Uint8Array {
  let reused = keptWriter(spec);
  // Twice, so the check covers a reset context too: a reset that kept the history, or dropped the options,
  // codes the second probe unlike a fresh one-shot.
  if (reused && !(sameBytes(reused(spec.probe), spec.oneShot(spec.probe)) && sameBytes(reused(spec.probe), spec.oneShot(spec.probe)))) reused = undefined;
  return (bytes) => {
    if (bytes.byteLength > spec.maxInput) return spec.oneShot(bytes);
    const coded = reused?.(bytes);
    if (coded !== undefined) return coded;
    reused = undefined;
    return spec.oneShot(bytes);
  };
}

/** The kept context's coder: undefined for a call it could not finish (then it is not used again). */
function keptWriter(spec: KeptContextSpec): ((bytes: Uint8Array) => Uint8Array | undefined) | undefined {
  const engine = spec.make() as ZlibInternals;
  const handle = engine._handle;
  const state = engine._writeState;
  if (!handle || typeof handle.writeSync !== 'function' || typeof handle.reset !== 'function' || !(state instanceof Uint32Array)) return undefined;
  // A failed write destroys the zlib object, which then emits 'error': caught here, the call falls back.
  engine.on('error', () => {});
  const out = new Uint8Array(spec.maxInput + (spec.maxInput >> 3) + 1024);
  return (bytes) => {
    try {
      handle.writeSync(spec.finish, bytes, 0, bytes.byteLength, out, 0, out.byteLength);
      const availOut = state[0]!;
      const availIn = state[1]!;
      handle.reset();
      // A full output buffer would mean more to come (not within maxInput): the call falls back.
      if (engine.destroyed || availOut === 0 || availIn !== 0) return undefined;
      return out.slice(0, out.byteLength - availOut);
    } catch {
      return undefined;
    }
  };
}

function sameBytes(a: Uint8Array | undefined, b: Uint8Array): boolean {
  if (a === undefined || a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The MCP dictionary coding's raw deflate at `level` with `dictionary`: the bytes of `zlib.deflateRawSync(bytes,
 * { level, dictionary })`. It takes replies under 4 KiB; up to 8 KiB go through the kept context.
 */
export function rawDeflateWithDictionary(level: number, dictionary: Uint8Array): (bytes: Uint8Array) => Uint8Array {
  return keptContextCoder({
    make: () => zlib.createDeflateRaw({ level, dictionary }),
    finish: zlib.constants.Z_FINISH,
    oneShot: (bytes) => zlib.deflateRawSync(bytes, { level, dictionary }),
    maxInput: 8 * 1024,
    // The dictionary's words in another order, and bytes it lacks.
    probe: Uint8Array.from({ length: 600 }, (_, i) => (i % 3 === 0 ? (i * 7) & 0xff : dictionary[(i * 13) % dictionary.byteLength]!)),
  });
}
