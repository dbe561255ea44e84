import * as zlib from 'node:zlib';
import { DecodedTooLargeError, type CodingStreamEncoder, type ContentCoding, type ContentCodings } from './content-codings.js';

// Content codings on node:zlib, for Node and Bun (imported by node.ts and bun.ts only). zstd is there on
// Node 22.15 and later and on Bun, not on Node 20: found by its functions, never by a version.

/** node:zlib's zstd, which @types/node 20 does not declare. */
interface ZstdZlib {
  zstdCompressSync?(bytes: Uint8Array, options: object): Buffer;
  zstdDecompressSync?(bytes: Uint8Array, options: object): Buffer;
  createZstdCompress?(options: object): zlib.Gzip;
  createZstdDecompress?(options: object): zlib.Gunzip;
}
const zstd = zlib as unknown as ZstdZlib;
const constants = zlib.constants as typeof zlib.constants & { ZSTD_c_compressionLevel?: number; ZSTD_e_flush?: number };

/** Whether this node:zlib has zstd (Node >= 22.15, Bun). */
export const hasZstd = typeof zstd.zstdCompressSync === 'function' && typeof zstd.createZstdCompress === 'function' && constants.ZSTD_e_flush !== undefined;

/**
 * The default levels (README, "Compression", with the command that measured them on a recorded session with
 * the official filesystem server): zstd 3 gave 0.65x the bytes of gzip 6 (what a proxy adds: nginx's and
 * most middleware's level) at 0.20x its CPU on Bun, where zstd 6 gave 0.62x at 0.49x; Brotli 4 0.63x at
 * 0.55-0.73x; gzip 5 the bytes of gzip 6 (1.001-1.003x) at 0.75-0.85x its CPU, for clients that take only
 * gzip (the stock ones).
 */
const ZSTD_LEVEL = 3;
const BROTLI_QUALITY = 4;
const GZIP_LEVEL = 5;

function zstdParams(): object {
  return { params: { [constants.ZSTD_c_compressionLevel ?? 100]: ZSTD_LEVEL } };
}

function brotliParams(size?: number): zlib.BrotliOptions {
  const params: Record<number, number> = { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY };
  if (size !== undefined) params[zlib.constants.BROTLI_PARAM_SIZE_HINT] = size;
  return { params };
}

function encode(coding: ContentCoding, bytes: Uint8Array): Uint8Array {
  if (coding === 'zstd') return zstd.zstdCompressSync!(bytes, zstdParams());
  if (coding === 'br') return zlib.brotliCompressSync(bytes, brotliParams(bytes.byteLength));
  return zlib.gzipSync(bytes, { level: GZIP_LEVEL });
}

/**
 * zlib's one-shot decoders stop with ERR_BUFFER_TOO_LARGE as soon as the output would pass
 * maxOutputLength: the cap is checked while inflating, so a ratio bomb allocates at most the cap.
 */
function decode(coding: ContentCoding, bytes: Uint8Array, maxBytes: number): Uint8Array {
  const options = { maxOutputLength: Math.max(1, maxBytes) };
  try {
    if (coding === 'zstd') return zstd.zstdDecompressSync!(bytes, options);
    if (coding === 'br') return zlib.brotliDecompressSync(bytes, options);
    return zlib.gunzipSync(bytes, options);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw new DecodedTooLargeError(maxBytes);
    throw error;
  }
}

/** A zlib stream as one context per event stream: a sync flush per event (Z_SYNC_FLUSH, Brotli's and zstd's flush). */
function streamEncoder(coding: ContentCoding): CodingStreamEncoder {
  const engine = coding === 'zstd' ? zstd.createZstdCompress!(zstdParams()) : coding === 'br' ? zlib.createBrotliCompress(brotliParams()) : zlib.createGzip({ level: GZIP_LEVEL });
  const flushKind = coding === 'zstd' ? constants.ZSTD_e_flush! : coding === 'br' ? zlib.constants.BROTLI_OPERATION_FLUSH : zlib.constants.Z_SYNC_FLUSH;
  let out: Uint8Array[] = [];
  let failure: Error | undefined;
  engine.on('data', (chunk: Uint8Array) => out.push(chunk));
  engine.on('error', (error: Error) => (failure = error));
  const take = (): Uint8Array[] => {
    if (failure) throw failure;
    const taken = out;
    out = [];
    return taken;
  };
  return {
    write: (bytes) => {
      if (bytes.byteLength > 0) engine.write(bytes);
    },
    // The flush's callback runs once zlib has taken every byte written before it, and its output has been
    // emitted by then (checked on Node and Bun by the tests: each event decodes whole before the next).
    flush: () => new Promise((resolve, reject) => engine.flush(flushKind, () => (failure ? reject(failure) : resolve(take())))),
    end: () =>
      new Promise((resolve, reject) => {
        engine.once('end', () => (failure ? reject(failure) : resolve(take())));
        engine.once('error', reject);
        engine.end();
      }),
    destroy: () => {
      engine.destroy();
      out = [];
    },
  };
}

/** Content codings on node:zlib: `fetchDecodes` what the runtime's fetch decodes (undici's and Bun's alike: zstd where zlib has it). */
export function zlibContentCodings(): ContentCodings {
  const all: readonly ContentCoding[] = hasZstd ? ['zstd', 'br', 'gzip'] : ['br', 'gzip'];
  return { encodes: all, encodesStreams: all, decodes: all, fetchDecodes: all, encode, streamEncoder, decode };
}
