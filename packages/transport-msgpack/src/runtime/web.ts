import { exposedGc, hasModuleNotFoundCode, type Runtime } from './runtime.js';
import { webContentCodings } from './web-codings.js';

/**
 * Every other runtime (Deno, Cloudflare Workers, browsers, web extensions): web standards only, no
 * adapters of this package's own. The client uses the global fetch; nothing here imports a `node:` module
 * or undici, so a bundler for the browser or a Worker finds none in the core's module graph.
 */
export const webRuntime: Runtime = {
  name: 'web',
  defaultFetch: () => ({ fetch: (url, init) => fetch(url, init) }),
  // Not known for every runtime: a stream with nothing to say yet sends a keep-alive, which costs nothing
  // where headers would have gone out anyway.
  streamHeadersWaitForFirstChunk: true,
  // No adapter here reports when a socket has taken lent bytes, so nothing is lent.
  writersGiveBackLentBytes: false,
  adapterWritesReplyText: false,
  measuresLinesByEncoding: false,
  // The two paths decode alike; guard + msgpackr is the one measured on V8 (Deno, workerd, Chromium), and
  // latin1Slice is Buffer's, which a browser does not have.
  decodePath: 'guard-then-msgpackr',
  shortAsciiFromWindow: false,
  // Not measured on these runtimes: MessagePack only where it pays on both runtimes measured (strings past
  // the later of the two break-evens, numbers), and on arrays of values as on V8, which most of them run.
  encodingBreakEven: { longStringChars: 512, smallValues: 256, msgpackForSmall: false, msgpackForNumeric: true, msgpackForKeySparse: true, keyDenseMsgpackValues: Number.POSITIVE_INFINITY },
  contentCodings: webContentCodings(),
  isModuleNotFound: (error) => hasModuleNotFoundCode(error) || (error instanceof Error && /Cannot find (module|package)|not found/i.test(error.message)),
  fullGarbageCollection: exposedGc,
};

/** The runtime this module is picked for (package.json "imports", `#runtime`, every condition but node and bun). */
export const runtime: Runtime = webRuntime;
