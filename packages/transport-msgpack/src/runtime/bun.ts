import { hasModuleNotFoundCode, type Runtime } from './runtime.js';
import { type ZstdOneShot, zlibContentCodings } from './zlib-codings.js';

/**
 * Bun: Bun.serve, JavaScriptCore, its own native fetch. The client uses the global fetch, native and
 * keep-alive; undici there runs on Bun's node:net layer and measured slower with large replies
 * (the since-deleted `measure-http.mjs --fetch undici|global` under Bun, at commit 38681c6: 1 MiB images, 16
 * clients, 82 vs 124 req/s; no bench command compares the two fetches).
 */
export const bunRuntime: Runtime = {
  name: 'bun',
  defaultFetch: () => ({ fetch: (url, init) => fetch(url, init) }),
  streamHeadersWaitForFirstChunk: true,
  // Bun's sinks do not say when a chunk has left; bun-adapter.ts gives lent bytes back once the body is done.
  writersGiveBackLentBytes: false,
  adapterWritesReplyText: false,
  measuresLinesByEncoding: false,
  // JavaScriptCore: the single pass wins or ties against guard + msgpackr on every payload of the codec
  // benchmark, and cutting short strings from a latin1 window beats building them char by char (`mcp-msgpack-bench --full --scenario codec`;
  // README "Decoding: one pass or two" has the figures).
  decodePath: 'single-pass',
  shortAsciiFromWindow: true,
  // JavaScriptCore (README "Per-message encoding", `npx mcp-msgpack-bench --calibrate --runtime bun`): MessagePack
  // wins on strings past the break-even (later than on V8: Bun's JSON copies plain text fast) and on
  // numbers; JSON wins on small messages and on records at every size measured (50 KB to 1 MB), and ties
  // on large arrays of short strings.
  // Large messages not mostly numbers (records or not) go as JSON at every size here, so the walk only
  // tells small from large, numbers and long strings: 256 values tell those (small is under 256), at half
  // the cost of 512 on every large reply (README, "Per-message encoding").
  encodingBreakEven: { longStringChars: 512, smallValues: 256, msgpackForSmall: false, msgpackForNumeric: true, msgpackForKeySparse: false, keyDenseMsgpackValues: Number.POSITIVE_INFINITY, walkValues: 256 },
  // zstd one-body replies through Bun's own one-shot (ZSTD_compress on a buffer sized once): the same bytes as
  // node:zlib's zstdCompressSync, which on Bun builds a zlib object and output chunks per reply, for 0.91x its
  // CPU on the recorded filesystem session's 109 KB reply at level 9 and about 4 µs less a small reply
  // (docs/MEASUREMENTS.md, issue 41, "Bun's coder CPU").
  contentCodings: zlibContentCodings(bunZstdOneShot()),
  // Some of Bun's import failures carry no code, only this message.
  isModuleNotFound: (error) => hasModuleNotFoundCode(error) || (error instanceof Error && /Cannot find (module|package)/.test(error.message)),
  // Bun.gc(true): a synchronous full collection. Bun.shrink() (not in Bun's typings, so only where present)
  // then has JavaScriptCore drop compiled code (compiled again on next use) and return its allocator's free
  // memory: without it the media server idle after a load kept 1.59x its start RSS, with it 1.23x (README,
  // "Memory when idle").
  fullGarbageCollection: () => () => {
    const bun = (globalThis as unknown as { Bun: { gc(force: boolean): void; shrink?: () => void } }).Bun;
    bun.gc(true);
    bun.shrink?.();
  },
};

/** Bun.zstdCompressSync (there in Bun 1.4.5; probed, not assumed) as a ZstdOneShot, where this Bun has it. */
function bunZstdOneShot(): { zstdOneShot?: ZstdOneShot } {
  const bun = (globalThis as unknown as { Bun?: { zstdCompressSync?(bytes: Uint8Array, options: { level: number }): Uint8Array } }).Bun;
  return typeof bun?.zstdCompressSync === 'function' ? { zstdOneShot: (bytes, level) => bun.zstdCompressSync!(bytes, { level }) } : {};
}

/** The runtime this module is picked for (package.json "imports", `#runtime`, condition `bun`). */
export const runtime: Runtime = bunRuntime;
