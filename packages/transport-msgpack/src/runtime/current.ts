import { bunRuntime } from './bun.js';
import { nodeRuntime } from './node.js';
import type { Runtime } from './runtime.js';

/** Whether this code runs on Bun (detected once, at load). */
export const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';

/** The runtime this process runs on. */
export const runtime: Runtime = isBun ? bunRuntime : nodeRuntime;
