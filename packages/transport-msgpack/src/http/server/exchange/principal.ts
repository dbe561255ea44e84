import type { AuthInfo } from '../../../mcp/types.js';

/**
 * Who a request is made by, as far as sessions care: a session answers only requests of the principal
 * that initialized it. Undefined means "no principal" (no authentication in front of the server), which
 * matches only requests without one.
 */
export type SessionPrincipal = (authInfo: AuthInfo | undefined) => string | undefined;

/**
 * The default: the token's subject when the verifier put one in `extra.sub` (one user across refreshed
 * tokens and clients), else its OAuth client id. Not the token itself, which changes on refresh. Servers
 * whose users share one OAuth client and whose verifier names no subject must pass their own.
 */
export const defaultSessionPrincipal: SessionPrincipal = (authInfo) => {
  if (authInfo === undefined) return undefined;
  const sub = authInfo.extra?.sub;
  return typeof sub === 'string' && sub !== '' ? `sub:${sub}` : `client:${authInfo.clientId}`;
};
