import type { FetchLike } from '../../mcp/types.js';
import { loadOAuthSdk } from './oauth-sdk.js';

/**
 * The fetch for the transport's own requests to the resource server (the MCP endpoint): `next` itself, or
 * for an auth provider with `dpop()` (RFC 9449, SEP-1932) `next` under SDK v2's DPoP layer, as v2's
 * StreamableHTTPClientTransport does: a DPoP-bound token goes with the `DPoP` scheme and a fresh proof for
 * each request's method and URL, a `use_dpop_nonce` challenge is answered once with the server's nonce, and
 * nonces on any response are kept for the next proof. (The token request's proof is the SDK's auth()'s.)
 * Only SDK v2 has DPoP; it is loaded on the first request.
 */
export function dpopResourceFetch(provider: object | undefined, next: FetchLike): FetchLike {
  if (typeof (provider as { dpop?: unknown } | undefined)?.dpop !== 'function') return next;
  let wrapped: Promise<FetchLike> | undefined;
  return async (url, init) => {
    wrapped ??= loadOAuthSdk(2).then((sdk) => {
      if (!sdk.withDpop) throw new Error('authProvider.dpop() needs SDK v2 (@modelcontextprotocol/client) for DPoP');
      return sdk.withDpop(provider as Parameters<typeof sdk.withDpop>[0])(next);
    });
    return (await wrapped)(url, init);
  };
}
