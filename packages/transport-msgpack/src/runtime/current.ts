// The runtime this package runs on, picked by the module resolver rather than by sniffing globals:
// package.json maps `#runtime` to bun.ts under the `bun` condition, to node.ts under `node` (after `deno`,
// which Deno also sets with `node`), and to web.ts everywhere else, so a bundler for a browser or a Worker
// never sees node.ts (and its undici import).
import { runtime as picked } from '#runtime';
import type { Runtime } from './runtime.js';

/** The runtime this process runs on. */
export const runtime: Runtime = picked;

/** Whether this code runs on Bun (for the runtime's own modules and tests; others ask runtime about a behaviour). */
export const isBun = runtime.name === 'bun';
