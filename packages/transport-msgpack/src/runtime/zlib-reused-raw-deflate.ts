import * as zlib from 'node:zlib';

// One raw deflate context with a preset dictionary, kept for the process and reset after each reply, for the
// MCP dictionary coding's small replies (SPEC 10.5). zlib.deflateRawSync makes a zlib object, its native
// state (about 270 KiB at level 6, the dictionary hashed into it anew) and an output buffer for every call:
// on a reply of a few hundred bytes that set-up is most of the cost (docs/MEASUREMENTS.md, issue 41, "Bun's
// coder CPU": 9-15 µs a reply one-shot against 6.5 reused, Node 20 and Bun 1.4.5). zlib's reset keeps the
// dictionary (node:zlib sets it again after deflateReset, on Node and Bun alike), so the bytes are those of
// deflateRawSync with the same options: checked when the context is made, and by the tests.
//
// node:zlib has no public one-shot call on a kept context (a stream's sync write closes it at Z_FINISH), so
// this drives the zlib object's handle as node:zlib's own zlibBufferSync does: `_handle.writeSync` and
// `_writeState`. Where a runtime lacks them, or the check's bytes differ, or a call fails, the coder falls
// back to deflateRawSync for good.

/** The parts of a node:zlib object's handle used here (lib/zlib.js's processChunkSync uses the same). */
interface ZlibHandle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  reset(): void;
}
interface ZlibInternals {
  readonly _handle?: ZlibHandle | null;
  readonly _writeState?: Uint32Array;
  readonly destroyed?: boolean;
}

/**
 * Inputs up to this size go through the kept context (the dictionary coding takes replies under 4 KiB);
 * larger ones one-shot. Its output buffer has room for deflate's worst case at this size.
 */
const KEPT_MAX_INPUT = 8 * 1024;
const OUTPUT_BYTES = KEPT_MAX_INPUT + (KEPT_MAX_INPUT >> 3) + 1024;

/** A raw deflate coder at `level` with `dictionary`, the same bytes as `zlib.deflateRawSync(bytes, { level, dictionary })`. */
export function rawDeflateWithDictionary(level: number, dictionary: Uint8Array): (bytes: Uint8Array) => Uint8Array {
  const oneShot = (bytes: Uint8Array): Uint8Array => zlib.deflateRawSync(bytes, { level, dictionary });
  let reused: ((bytes: Uint8Array) => Uint8Array | undefined) | undefined = kept(level, dictionary);
  // Twice, so the check covers a reset context too: the dictionary's words in another order, and bytes it lacks.
  const probe = Uint8Array.from({ length: 600 }, (_, i) => (i % 3 === 0 ? (i * 7) & 0xff : dictionary[(i * 13) % dictionary.byteLength]!));
  if (reused && !(sameBytes(reused(probe), oneShot(probe)) && sameBytes(reused(probe), oneShot(probe)))) reused = undefined;
  return (bytes) => {
    if (bytes.byteLength > KEPT_MAX_INPUT) return oneShot(bytes);
    const coded = reused?.(bytes);
    if (coded !== undefined) return coded;
    reused = undefined;
    return oneShot(bytes);
  };
}

/** The kept context's coder: undefined for a call it could not finish (then it is not used again). */
function kept(level: number, dictionary: Uint8Array): ((bytes: Uint8Array) => Uint8Array | undefined) | undefined {
  const engine = zlib.createDeflateRaw({ level, dictionary }) as zlib.DeflateRaw & ZlibInternals;
  const handle = engine._handle;
  const state = engine._writeState;
  if (!handle || typeof handle.writeSync !== 'function' || typeof handle.reset !== 'function' || !(state instanceof Uint32Array)) return undefined;
  // A failed write destroys the zlib object, which then emits 'error': caught here, the call falls back.
  engine.on('error', () => {});
  const out = new Uint8Array(OUTPUT_BYTES);
  return (bytes) => {
    try {
      handle.writeSync(zlib.constants.Z_FINISH, bytes, 0, bytes.byteLength, out, 0, out.byteLength);
      const availOut = state[0]!;
      const availIn = state[1]!;
      handle.reset();
      // A full output buffer would mean more to come (not at these sizes): the call falls back.
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
