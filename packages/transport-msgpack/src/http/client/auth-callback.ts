import type { FetchLike } from '../../mcp/types.js';
import type { OAuthSdk } from './oauth-sdk.js';

/** What finishAuth() takes, as the SDK's transports take it: the code (and its `iss`), or the callback's query. */
export type AuthorizationCallback = string | URLSearchParams;

/** Where the callback's issuer is checked against when it carries no code (an error callback). */
export interface CallbackContext {
  sdk: OAuthSdk;
  provider: { discoveryState?(): unknown };
  serverUrl: URL;
  fetchFn: FetchLike;
  resourceMetadataUrl: URL | undefined;
}

/**
 * The authorization code and `iss` (RFC 9207) of an authorization response. A code goes on to auth(),
 * which checks `iss` against the authorization server's metadata before redeeming it (SDK v2; v1 has no
 * such check). A callback without a code is an error response: with v2 its `iss` is checked first, and
 * only then is its `error` shown (in a mix-up attack that text is the attacker's); with v1 the callback's
 * error text is not shown at all.
 */
export async function readAuthorizationCallback(callback: AuthorizationCallback, iss: string | undefined, context: CallbackContext): Promise<{ code: string; iss: string | undefined }> {
  if (typeof callback === 'string') return { code: callback, iss };
  const code = callback.get('code');
  const issParam = callback.get('iss') ?? undefined;
  if (code) return { code, iss: issParam };
  const { sdk } = context;
  if (!sdk.callback) throw new sdk.UnauthorizedError('Authorization callback contained no code');
  const state = (await context.provider.discoveryState?.()) as { authorizationServerMetadata?: { issuer?: string; authorization_response_iss_parameter_supported?: boolean } } | undefined;
  let metadata = state?.authorizationServerMetadata;
  if (!metadata) metadata = await sdk.callback.discoverMetadata(context.serverUrl, context.fetchFn, context.resourceMetadataUrl).catch(() => undefined);
  if (!metadata) throw new sdk.UnauthorizedError('Authorization callback failed and the issuer could not be verified');
  sdk.callback.validateIssuer({ iss: issParam, expectedIssuer: metadata.issuer, issParameterSupported: metadata.authorization_response_iss_parameter_supported === true });
  const error = callback.get('error');
  if (error) throw new sdk.callback.OAuthError(error, callback.get('error_description') ?? error, callback.get('error_uri') ?? undefined);
  throw new sdk.UnauthorizedError('Authorization callback contained neither `code` nor `error`');
}
