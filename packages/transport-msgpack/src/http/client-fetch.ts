import type { FetchLike } from '../mcp/types.js';
import { isBun } from '../runtime.js';

export interface ClientFetch {
  fetch: FetchLike;
  close?: () => Promise<void>;
}


/**
 * The client's default fetch. Node: undici's fetch on an Agent of its own, so connections are kept alive
 * per origin and closed with the transport (Node's global fetch measured the same within noise). Bun: the
 * global fetch, native and keep-alive; undici there runs on Bun's node:net layer and measured slower with
 * large replies (`bun scripts/measure-http.mjs --fetch undici|global`: 1 MiB images, 16 clients, 82 vs
 * 124 req/s).
 */
export function defaultFetch(): ClientFetch {
  if (isBun) return { fetch: (url, init) => fetch(url, init) };
  let agent: import('undici').Agent | undefined;
  let undici: Promise<typeof import('undici')> | undefined;
  return {
    fetch: async (url, init) => {
      undici ??= import('undici');
      const { Agent, fetch: undiciFetch } = await undici;
      agent ??= new Agent({ keepAliveTimeout: 10_000 });
      return (await undiciFetch(url, { ...(init as object), dispatcher: agent } as never)) as unknown as Response;
    },
    close: async () => {
      // Forget the agent: the SDK's OAuth flow calls finishAuth() on the transport connect() already
      // closed, and that fetch must get a fresh agent, not a destroyed one.
      const closing = agent;
      agent = undefined;
      await closing?.destroy();
    },
  };
}
