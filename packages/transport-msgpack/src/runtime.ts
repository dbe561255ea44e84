/** Whether this code runs on Bun, whose HTTP server, sinks and fetch behave differently from Node's. */
export const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';
