import type { FetchLike } from '../../mcp/types.js';
import { runtime } from '../../runtime/current.js';
import type { HttpMsgpackClientOptions } from './client-options.js';
import { createFetchWithInit, fetchLeavingRedirects, fetchWithinOrigin } from './redirects.js';
import { fetchNamingFailures } from './fetch-failure.js';

/** The fetches of one client transport, with its redirect policy applied. */
export interface ClientFetches {
  /** For the transport's own requests. */
  request: FetchLike;
  /** For the OAuth requests: `requestInit` under each call's init. */
  withInit: FetchLike;
  /** Closes the default fetch's connections; undefined for a fetch the options gave. */
  close: (() => Promise<void>) | undefined;
}

/**
 * The options' fetch, or the runtime's default one (an undici keep-alive agent on Node, the global fetch on Bun).
 * `resource` wraps the fetch of the transport's own requests inside the redirect policy (DPoP: a proof is
 * bound to the URL actually requested).
 */
export function clientFetches(options: HttpMsgpackClientOptions, resource: (fetch: FetchLike) => FetchLike = (fetch) => fetch): ClientFetches {
  let base: FetchLike;
  let close: (() => Promise<void>) | undefined;
  if (options.fetch) {
    base = options.fetch;
  } else {
    const made = runtime.defaultFetch();
    base = made.fetch;
    close = made.close;
  }
  base = fetchNamingFailures(base);
  const follow = options.redirectPolicy === 'follow';
  // The SDK's auth() applies the same-origin rule itself unless its fetch is marked as leaving redirects.
  const withInit = createFetchWithInit(base, options.requestInit);
  const own = resource(base);
  return { request: follow ? own : fetchWithinOrigin(own), withInit: follow ? fetchLeavingRedirects(withInit) : withInit, close };
}
