import { hasModuleNotFoundCode, type ClientFetch, type Runtime } from './runtime.js';

/**
 * The client's default fetch on Node: undici's fetch on an Agent of its own, so connections are kept alive
 * per origin and closed with the transport (Node's global fetch measured the same within noise).
 */
function undiciFetch(): ClientFetch {
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

/** Node (and runtimes that pass for it): node:http, V8. */
export const nodeRuntime: Runtime = {
  name: 'node',
  defaultFetch: undiciFetch,
  streamHeadersWaitForFirstChunk: false,
  writersGiveBackLentBytes: true,
  adapterWritesReplyText: true,
  isModuleNotFound: hasModuleNotFoundCode,
};
