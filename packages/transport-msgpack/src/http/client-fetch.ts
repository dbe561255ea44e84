import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

export interface ClientFetch {
  fetch: FetchLike;
  close?: () => Promise<void>;
}

const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';

/**
 * The client's default fetch. Node: undici's fetch on an Agent of its own, so connections are kept alive
 * and pipelined per origin and closed with the transport. Bun: the global fetch, which keeps connections
 * alive natively (undici there runs on Bun's node:net shim and measured slower).
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
      await agent?.destroy();
    },
  };
}
