import { Buffer } from 'node:buffer';
import * as zlib from 'node:zlib';
import type { CodingStreamEncoder } from './content-codings.js';

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
  destroy(): void;
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
  const writer = keptWriter(spec.make, spec.finish, spec.maxInput + (spec.maxInput >> 3) + 1024);
  let reused = writer && ((bytes: Uint8Array) => writer.write(bytes));
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

/** A kept context's coder: undefined for a call it could not finish; `broken` once its zlib object failed. */
interface KeptWriter {
  write(bytes: Uint8Array, outLength?: number): Uint8Array | undefined;
  readonly broken: boolean;
}

/** The kept context: `outBytes` of output buffer, each call's output up to `outLength` of it (all by default). */
function keptWriter(make: () => object, finish: number, outBytes: number): KeptWriter | undefined {
  const engine = make() as ZlibInternals;
  const handle = engine._handle;
  const state = engine._writeState;
  if (!handle || typeof handle.writeSync !== 'function' || typeof handle.reset !== 'function' || !(state instanceof Uint32Array)) return undefined;
  // A failed write destroys the zlib object, which then emits 'error': caught here, the call falls back.
  engine.on('error', () => {});
  const out = new Uint8Array(outBytes);
  let threw = false;
  return {
    get broken() {
      return threw || engine.destroyed === true;
    },
    write: (bytes, outLength = out.byteLength) => {
      try {
        handle.writeSync(finish, bytes, 0, bytes.byteLength, out, 0, outLength);
        const availOut = state[0]!;
        const availIn = state[1]!;
        handle.reset();
        // A full output buffer would mean more to come: the call falls back. So does input left over.
        if (engine.destroyed || availOut === 0 || availIn !== 0) return undefined;
        return out.slice(0, outLength - availOut);
      } catch {
        threw = true;
        return undefined;
      }
    },
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
    probe: dictionaryProbe(dictionary),
  });
}

/** The check's input for a dictionary's contexts: the dictionary's words in another order, and bytes it lacks. */
function dictionaryProbe(dictionary: Uint8Array): Uint8Array {
  return Uint8Array.from({ length: 600 }, (_, i) => (i % 3 === 0 ? (i * 7) & 0xff : dictionary[(i * 13) % dictionary.byteLength]!));
}

/**
 * Decoded bodies up to this size go through the kept inflate context: the dictionary coding is for replies
 * under 4 KiB (SPEC 10.5), so this holds any honest one with room; a larger output goes one-shot.
 */
const KEPT_INFLATE_MAX_OUTPUT = 16 * 1024;

/**
 * The MCP dictionary coding's raw inflate with `dictionary`, capped at `maxBytes`: the bytes, or the error, of
 * `zlib.inflateRawSync(bytes, { dictionary, maxOutputLength: maxBytes })` (ERR_BUFFER_TOO_LARGE past the cap).
 * A client decodes one reply or two of a session's opening in this coding, and a one-shot inflate makes a
 * zlib object, its native state and its buffers for each (on Bun a stream object too): 2-9 us a reply against
 * 0.4-2.8 kept (docs/MEASUREMENTS.md, 2026-12-07, "The session opening's CPU"). So one context per dictionary is kept and
 * reset between replies, checked when made as the deflate's is. Whatever it does not finish cleanly (an
 * output that fills its buffer or passes the cap, input left after the end, a corrupt body) is decoded again
 * one-shot, which gives that call's result or error; a context whose zlib object failed is made anew.
 */
export function rawInflateWithDictionary(dictionary: Uint8Array): (bytes: Uint8Array, maxBytes: number) => Uint8Array {
  const oneShot = (bytes: Uint8Array, maxBytes: number): Uint8Array => zlib.inflateRawSync(bytes, { dictionary, maxOutputLength: maxBytes });
  const plainProbe = dictionaryProbe(dictionary);
  const probe = zlib.deflateRawSync(plainProbe, { dictionary });
  let writer: KeptWriter | undefined;
  let usable = true;
  const make = (): KeptWriter | undefined => {
    const made = keptWriter(() => zlib.createInflateRaw({ dictionary }), zlib.constants.Z_FINISH, KEPT_INFLATE_MAX_OUTPUT + 1);
    // Twice, so a reset context is checked too (one that lost the dictionary decodes the second unlike).
    if (made && sameBytes(made.write(probe), plainProbe) && sameBytes(made.write(probe), plainProbe)) return made;
    usable = false;
    return undefined;
  };
  return (bytes, maxBytes) => {
    if (usable) {
      if (!writer || writer.broken) writer = make();
      // One byte over the cap (or the buffer): a call that fills it is over and goes one-shot.
      const plain = writer?.write(bytes, Math.min(KEPT_INFLATE_MAX_OUTPUT, maxBytes) + 1);
      if (plain !== undefined) return plain;
    }
    return oneShot(bytes, maxBytes);
  };
}

/** The flushes a stream coder drives its context with: per write, per event, at the end. */
export interface StreamFlushes {
  /** What node:zlib's stream passes with each write (Z_NO_FLUSH, BROTLI_OPERATION_PROCESS, ZSTD_e_continue). */
  readonly write: number;
  /** The flush after each event (Z_SYNC_FLUSH, BROTLI_OPERATION_FLUSH, ZSTD_e_flush). */
  readonly flush: number;
  /** The end (Z_FINISH, BROTLI_OPERATION_FINISH, ZSTD_e_end). */
  readonly finish: number;
}

/** Output buffer of each call, as node:zlib's default chunk (the bytes do not depend on it). */
const STREAM_CHUNK_BYTES = 16 * 1024;

/**
 * An event stream's compression context driven through the zlib object's handle synchronously, making the
 * calls node:zlib's stream makes for the same writes, flushes and end (each write with `flushes.write`, each
 * flush and the end on no input), so the bytes are the stream's; but with no trip through the thread pool per
 * call. A context made, given a keep-alive comment and flushed took 145-280 us of CPU through the stream and
 * 40-100 us so (Bun 1.4.5, Node 20; docs/MEASUREMENTS.md, 2026-12-07, "The session opening's CPU").
 * Undefined where the runtime's zlib object lacks the handle's parts: the caller keeps the stream then.
 */
export function handleStreamCoder(make: () => object, flushes: StreamFlushes, decodeWhole: (bytes: Uint8Array) => Uint8Array): CodingStreamEncoder | undefined {
  if (!handlePathSound(make, flushes, decodeWhole)) return undefined;
  const core = handleStreamCore(make());
  if (!core) return undefined;
  const none = new Uint8Array(0);
  const take = (): Promise<Uint8Array[]> => {
    try {
      return Promise.resolve(core.drain());
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return {
    write: (bytes) => {
      if (bytes.byteLength > 0) core.run(flushes.write, bytes);
    },
    flush: () => {
      core.run(flushes.flush, none);
      return take();
    },
    end: () => {
      core.run(flushes.finish, none);
      const taken = take();
      // Done with: its native state goes now, as a stream's does once it has ended.
      core.destroy();
      return taken;
    },
    destroy: core.destroy,
  };
}

/** The handle driven synchronously: `run` makes one call as node:zlib's processChunkSync does, `drain` takes its output. */
interface HandleStreamCore {
  run(flush: number, input: Uint8Array): void;
  /** The output since the last drain; throws what the context failed with. */
  drain(): Uint8Array[];
  destroy(): void;
}

function handleStreamCore(engine: object): HandleStreamCore | undefined {
  const zlibObject = engine as ZlibInternals;
  const handle = zlibObject._handle;
  const state = zlibObject._writeState;
  if (!handle || typeof handle.writeSync !== 'function' || !(state instanceof Uint32Array)) return undefined;
  let failure: Error | undefined;
  zlibObject.on('error', (error: Error) => {
    failure ??= error;
  });
  let out: Uint8Array[] = [];
  return {
    // Again while the output buffer fills.
    run: (flush, input) => {
      if (failure) return;
      // A destroyed zlib object's handle is closed, and writing to it aborts the process on Node (a native
      // assertion, not an error): a stream the client went away from (destroy) can still be ended by a pull in
      // flight. So the call fails as node:zlib's own stream fails a write after destroy.
      if (zlibObject.destroyed) {
        failure = new Error('the compression context was destroyed');
        return;
      }
      let offset = 0;
      let left = input.byteLength;
      try {
        for (;;) {
          const buffer = new Uint8Array(STREAM_CHUNK_BYTES);
          handle.writeSync(flush, input, offset, left, buffer, 0, buffer.byteLength);
          if (failure || zlibObject.destroyed) break;
          const availOut = state[0]!;
          const availIn = state[1]!;
          if (availOut < buffer.byteLength) out.push(buffer.subarray(0, buffer.byteLength - availOut));
          if (availOut !== 0) break;
          offset += left - availIn;
          left = availIn;
        }
      } catch (error) {
        failure ??= error as Error;
      }
      failure ??= zlibObject.destroyed ? new Error('the compression context was destroyed') : undefined;
    },
    drain: () => {
      if (failure) throw failure;
      const taken = out;
      out = [];
      return taken;
    },
    destroy: () => {
      zlibObject.destroy();
      out = [];
    },
  };
}

/** Per engine maker: whether the handle path coded the probe soundly on this runtime (checked once). */
const soundHandlePaths = new WeakMap<() => object, boolean>();

/**
 * The handle path leans on node:zlib's internals (the handle's writeSync and the write state it reports in),
 * so before its first use for a coding it codes a probe, once per process: two events (a flush between)
 * and the end, each more than one output buffer, must decode whole to what went in (output lost or repeated
 * between calls would not). That each event decodes at its flush is the tests' to check, on every runtime and
 * Node line CI runs. A runtime whose internals differ keeps node:zlib's stream.
 */
function handlePathSound(make: () => object, flushes: StreamFlushes, decodeWhole: (bytes: Uint8Array) => Uint8Array): boolean {
  let sound = soundHandlePaths.get(make);
  if (sound === undefined) {
    sound = probeHandlePath(make, flushes, decodeWhole);
    soundHandlePaths.set(make, sound);
  }
  return sound;
}

function probeHandlePath(make: () => object, flushes: StreamFlushes, decodeWhole: (bytes: Uint8Array) => Uint8Array): boolean {
  const core = handleStreamCore(make());
  if (!core) return false;
  try {
    const [first, second] = [streamProbe(1), streamProbe(2)];
    core.run(flushes.write, first);
    core.run(flushes.flush, new Uint8Array(0));
    const atFlush = core.drain();
    core.run(flushes.write, second);
    core.run(flushes.finish, new Uint8Array(0));
    const all = [...atFlush, ...core.drain()];
    if (atFlush.length === 0) return false;
    return sameBytes(decodeWhole(Buffer.concat(all)), Buffer.concat([first, second]));
  } catch {
    return false;
  } finally {
    core.destroy();
  }
}

/** Bytes that do not compress (a seeded xorshift), longer than two output buffers, so each call refills. */
function streamProbe(seed: number): Uint8Array {
  const bytes = new Uint8Array(STREAM_CHUNK_BYTES * 2 + 1000);
  let x = 0x9e3779b9 ^ seed;
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
}
