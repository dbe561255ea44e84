import * as zlib from 'node:zlib';
import { DecodedTooLargeError, type CodingStreamEncoder, type ContentCoding, type ContentCodings, type PresetDictionaryCoder } from './content-codings.js';

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

/**
 * A one-body reply from this size on is coded a level higher (zstd 6, Brotli 5): where a body is large,
 * the higher level finds more (on the recorded session's 109 KB read_text_file reply, a text sent twice as
 * `content` and `structuredContent`, zstd 6 gave 0.51x gzip 6's bytes against zstd 3's 0.54x at 0.27x gzip
 * 6's coder CPU, Brotli 5 0.50x against Brotli 4's 0.53x at 0.46x), while under it the levels code alike
 * (zstd 3 and 6 within 5% of gzip 6's bytes on the session's 1-64 KB replies) and the lower level's CPU is
 * the better buy. `npx mcp-msgpack-bench --scenario codings` prints each level's bytes and CPU per reply.
 * Streams keep the lower level: they are coded event by event, each event small.
 */
const LARGE_BODY_BYTES = 64 * 1024;
const ZSTD_LEVEL_LARGE = 6;
const BROTLI_QUALITY_LARGE = 5;

function zstdParams(level = ZSTD_LEVEL): object {
  return { params: { [constants.ZSTD_c_compressionLevel ?? 100]: level } };
}

function brotliParams(size?: number, quality = BROTLI_QUALITY): zlib.BrotliOptions {
  const params: Record<number, number> = { [zlib.constants.BROTLI_PARAM_QUALITY]: quality };
  if (size !== undefined) params[zlib.constants.BROTLI_PARAM_SIZE_HINT] = size;
  return { params };
}

function encode(coding: ContentCoding, bytes: Uint8Array): Uint8Array {
  const large = bytes.byteLength >= LARGE_BODY_BYTES;
  if (coding === 'zstd') return zstd.zstdCompressSync!(bytes, zstdParams(large ? ZSTD_LEVEL_LARGE : ZSTD_LEVEL));
  if (coding === 'br') return zlib.brotliCompressSync(bytes, brotliParams(bytes.byteLength, large ? BROTLI_QUALITY_LARGE : BROTLI_QUALITY));
  return zlib.gzipSync(bytes, { level: GZIP_LEVEL });
}

/**
 * zlib's one-shot decoders stop with ERR_BUFFER_TOO_LARGE as soon as the output would pass
 * maxOutputLength: the cap is checked while inflating, so a ratio bomb allocates at most the cap.
 */
function decode(coding: ContentCoding, bytes: Uint8Array, maxBytes: number): Uint8Array {
  const options = { maxOutputLength: Math.max(1, maxBytes) };
  return capped(maxBytes, () => {
    if (coding === 'zstd') return zstd.zstdDecompressSync!(bytes, options);
    if (coding === 'br') return zlib.brotliDecompressSync(bytes, options);
    return zlib.gunzipSync(bytes, options);
  });
}

function capped(maxBytes: number, inflate: () => Uint8Array): Uint8Array {
  try {
    return inflate();
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw new DecodedTooLargeError(maxBytes);
    throw error;
  }
}

/**
 * The MCP dictionary coding's deflate (SPEC 10.5): level 6, where on replies of a few hundred bytes the
 * levels differ by a byte or two and zlib's set-up is most of the cost.
 */
const presetDictionary: PresetDictionaryCoder = {
  encode: (bytes, dictionary) => zlib.deflateRawSync(bytes, { level: 6, dictionary }),
  decode: (bytes, dictionary, maxBytes) => capped(maxBytes, () => zlib.inflateRawSync(bytes, { dictionary, maxOutputLength: Math.max(1, maxBytes) })),
};

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
  return { encodes: all, encodesStreams: all, decodes: all, fetchDecodes: all, encode, streamEncoder, decode, dictionary: presetDictionary };
}
