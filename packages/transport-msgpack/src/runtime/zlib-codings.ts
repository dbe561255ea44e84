import * as zlib from 'node:zlib';
import { handleStreamCoder, keptContextCoder, rawDeflateWithDictionary, rawInflateWithDictionary, type StreamFlushes } from './zlib-kept-context.js';
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
const constants = zlib.constants as typeof zlib.constants & { ZSTD_c_compressionLevel?: number; ZSTD_e_continue?: number; ZSTD_e_flush?: number; ZSTD_e_end?: number };

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
 * A larger one-body reply is coded at a higher level, by size (docs/MEASUREMENTS.md, "Content codings",
 * 2026-12-07; each reply of the recorded sessions as MessagePack, coded on its own, Bun 1.4.5 and Node 20):
 * - from 64 KiB, zstd 9 and Brotli 5: on the 109 KB `read_text_file` reply (a text sent twice, as `content`
 *   and `structuredContent`, which gzip's 32 KB window cannot see) zstd 9 is 248 bytes under zstd 6 (19836
 *   against 20084) for about 0.35 ms more (1.2 against 0.85 ms; gzip 6 took 2.5 ms), the knee of the curve:
 *   zstd 12 saved 73 bytes more for 1.4 ms more, and no strategy or window of its own did better. At cloud
 *   egress and CPU prices the 248 bytes cost about six times the 0.35 ms. Brotli 6 saved 115 bytes for 0.5-1.4
 *   ms more: Brotli stays at 5.
 * - from 8 KiB, Brotli 5 (Node 20, which has no zstd): on the filesystem session's 12-24 KB replies 51-290
 *   bytes under Brotli 4 for 50-165 µs more (+40%). zstd stays at 3 there. Measured again for issue 41's
 *   0.6x (MEASUREMENTS, "zstd levels for the 8-64 KiB replies"; `--scenario compression`, whole sessions a
 *   round): zstd 4/5/6 take the filesystem session from 0.607x of JSON + gzip 6's bytes to 0.605/0.601/
 *   0.600x on Bun and from 0.614x to 0.612/0.609/0.607x on Node 24, short of 0.6x on both, while zstd 6
 *   raised the server CPU per call on the bench's 50 KB shapes 1.2-1.7x over zstd 3's (`--baseline`). Only
 *   Brotli 5 from 8 KiB, as on Node 20, reaches it there (0.586x, 0.593x), at 1.1-1.2x JSON + gzip 6's
 *   server CPU on Bun's 50 KB shapes (zstd 3: 0.6-0.7x). So the handler's `compression.favor: 'bytes'`
 *   (the default; http/content-coding/compression-options.ts) codes a reply of 8-64 KiB in br where the
 *   client takes it, and `'cpu'` keeps zstd 3 there: the levels here stay as they are for both.
 * `npx mcp-msgpack-bench --scenario codings` prints each level's bytes and CPU per reply. Streams keep the
 * lowest level: they are coded event by event, each event small.
 */
const LEVELS_BY_SIZE: ReadonlyArray<{ readonly fromBytes: number; readonly zstd: number; readonly brotli: number }> = [
  { fromBytes: 64 * 1024, zstd: 9, brotli: 5 },
  { fromBytes: 8 * 1024, zstd: ZSTD_LEVEL, brotli: 5 },
  { fromBytes: 0, zstd: ZSTD_LEVEL, brotli: BROTLI_QUALITY },
];

function zstdParams(level = ZSTD_LEVEL): object {
  return { params: { [constants.ZSTD_c_compressionLevel ?? 100]: level } };
}

function brotliParams(size?: number, quality = BROTLI_QUALITY): zlib.BrotliOptions {
  const params: Record<number, number> = { [zlib.constants.BROTLI_PARAM_QUALITY]: quality };
  if (size !== undefined) params[zlib.constants.BROTLI_PARAM_SIZE_HINT] = size;
  return { params };
}

/** A runtime's own one-shot zstd at `level`, where it codes the same bytes as node:zlib's for less CPU (Bun's). */
export type ZstdOneShot = (bytes: Uint8Array, level: number) => Uint8Array;

/**
 * Replies up to this size are zstd-coded on one kept context per level (zlib-kept-context.ts), the same bytes as
 * zstdCompressSync: on Node 24 the filesystem session's replies of 256 B-8 KiB at zstd 3 took 34 against 237 µs
 * a session, those of 8-64 KiB 100 against 271, the 109 KB one at zstd 9 1.17 against 1.33 ms (in process,
 * docs/MEASUREMENTS.md, "The server CPU target on Node 22, 24 and Bun"). Larger ones go one-shot, so what a
 * kept context holds is sized for at most this input (its output buffer about 290 KiB; resident memory after
 * coding 5 KB and 200 KB replies at both levels was the one-shot calls', 13-14 MiB either way). Bun codes
 * zstd with its own one-shot (runtime/bun.ts), not this.
 */
const KEPT_ZSTD_MAX_INPUT = 256 * 1024;

const keptZstd = new Map<number, (bytes: Uint8Array) => Uint8Array>();

/** node:zlib's zstd at `level`, through a kept context where this runtime's check passes (zlib-kept-context.ts). */
const nodeZstd: ZstdOneShot = (bytes, level) => {
  let coder = keptZstd.get(level);
  if (!coder) {
    const oneShot = (input: Uint8Array): Uint8Array => zstd.zstdCompressSync!(input, zstdParams(level));
    const probe = Uint8Array.from({ length: 3000 }, (_, i) => (i % 5 === 0 ? (i * 31) & 0xff : 97 + ((i >> 4) % 26)));
    const finish = constants.ZSTD_e_end;
    coder = finish === undefined ? oneShot : keptContextCoder({ make: () => zstd.createZstdCompress!(zstdParams(level)), finish, oneShot, maxInput: KEPT_ZSTD_MAX_INPUT, probe });
    keptZstd.set(level, coder);
  }
  return coder(bytes);
};

function encoder(zstdOneShot: ZstdOneShot): ContentCodings['encode'] {
  return (coding, bytes) => {
    const levels = LEVELS_BY_SIZE.find((tier) => bytes.byteLength >= tier.fromBytes)!;
    if (coding === 'zstd') return zstdOneShot(bytes, levels.zstd);
    if (coding === 'br') return zlib.brotliCompressSync(bytes, brotliParams(bytes.byteLength, levels.brotli));
    return zlib.gzipSync(bytes, { level: GZIP_LEVEL });
  };
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
 * levels differ by a byte or two and zlib's set-up is most of the cost. So one context per dictionary is
 * kept and reset between replies (zlib-kept-context.ts), with deflateRawSync's bytes.
 */
const dictionaryCoders = new WeakMap<Uint8Array, (bytes: Uint8Array) => Uint8Array>();
/** The decoding side likewise (a client's): one kept inflate context per dictionary (zlib-kept-context.ts). */
const dictionaryDecoders = new WeakMap<Uint8Array, (bytes: Uint8Array, maxBytes: number) => Uint8Array>();
const presetDictionary: PresetDictionaryCoder = {
  encode: (bytes, dictionary) => {
    let coder = dictionaryCoders.get(dictionary);
    if (!coder) dictionaryCoders.set(dictionary, (coder = rawDeflateWithDictionary(6, dictionary)));
    return coder(bytes);
  },
  decode: (bytes, dictionary, maxBytes) => {
    let decoder = dictionaryDecoders.get(dictionary);
    if (!decoder) dictionaryDecoders.set(dictionary, (decoder = rawInflateWithDictionary(dictionary)));
    return capped(maxBytes, () => decoder(bytes, Math.max(1, maxBytes)));
  },
};

/**
 * Each coding's stream context and the flushes node:zlib's stream drives it with. The maker is made once per
 * coding, since it also keys the handle path's one check (zlib-kept-context.ts). zstd's constants are
 * undefined where node:zlib has no zstd, which then never codes a stream in it.
 */
const streamCodings: Record<ContentCoding, { readonly make: () => zlib.Gzip; readonly flushes: StreamFlushes }> = {
  zstd: {
    make: () => zstd.createZstdCompress!(zstdParams()),
    flushes: { write: constants.ZSTD_e_continue!, flush: constants.ZSTD_e_flush!, finish: constants.ZSTD_e_end! },
  },
  br: {
    make: () => zlib.createBrotliCompress(brotliParams()) as unknown as zlib.Gzip,
    flushes: { write: zlib.constants.BROTLI_OPERATION_PROCESS, flush: zlib.constants.BROTLI_OPERATION_FLUSH, finish: zlib.constants.BROTLI_OPERATION_FINISH },
  },
  gzip: {
    make: () => zlib.createGzip({ level: GZIP_LEVEL }),
    flushes: { write: zlib.constants.Z_NO_FLUSH, flush: zlib.constants.Z_SYNC_FLUSH, finish: zlib.constants.Z_FINISH },
  },
};

/** A zlib stream as one context per event stream: a sync flush per event (Z_SYNC_FLUSH, Brotli's and zstd's flush). */
function streamEncoder(coding: ContentCoding): CodingStreamEncoder {
  const { make, flushes } = streamCodings[coding];
  const direct = handleStreamCoder(make, flushes, (bytes) => decode(coding, bytes, 1 << 20));
  if (direct) return direct;
  const engine = make();
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
    flush: () => new Promise((resolve, reject) => engine.flush(flushes.flush, () => (failure ? reject(failure) : resolve(take())))),
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

/**
 * Content codings on node:zlib: `fetchDecodes` what the runtime's fetch decodes (undici's and Bun's alike:
 * zstd where zlib has it). `zstdOneShot` replaces node:zlib's one-shot zstd for one-body replies (streams
 * stay on node:zlib's contexts).
 */
export function zlibContentCodings(options: { readonly zstdOneShot?: ZstdOneShot } = {}): ContentCodings {
  const all: readonly ContentCoding[] = hasZstd ? ['zstd', 'br', 'gzip'] : ['br', 'gzip'];
  const encode = encoder(hasZstd ? (options.zstdOneShot ?? nodeZstd) : nodeZstd);
  return { encodes: all, encodesStreams: all, decodes: all, fetchDecodes: all, encode, streamEncoder, decode, dictionary: presetDictionary };
}
