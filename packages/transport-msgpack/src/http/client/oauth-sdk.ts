import type { FetchLike, OAuthClientProvider } from '../../mcp/types.js';
import { runtime } from '../../runtime/current.js';

/**
 * The OAuth flow (discovery, dynamic registration, PKCE, token refresh, issuer checks) is the installed SDK's,
 * loaded on first use only, so the package runs without any SDK until an `authProvider` needs one: SDK v1's
 * `client/auth` (`@modelcontextprotocol/sdk`) or v2's `@modelcontextprotocol/client`.
 */

export type AuthResult = 'AUTHORIZED' | 'REDIRECT';

export interface AuthOptions {
  serverUrl: URL;
  authorizationCode?: string;
  /** The authorization response's `iss` (RFC 9207): v2's auth() checks it against the server's issuer. */
  iss?: string;
  resourceMetadataUrl?: URL;
  scope?: string;
  /** Skip the refresh grant and ask the user again (v2; v1's auth() has no such option, see client-auth.ts). */
  forceReauthorization?: boolean;
  fetchFn: FetchLike;
}

/** Authorization server metadata, as far as the callback's issuer check reads it. */
export interface IssuerMetadata {
  issuer?: string;
  authorization_response_iss_parameter_supported?: boolean;
}

export interface OAuthSdk {
  generation: SdkGeneration;
  auth(provider: OAuthClientProvider, options: AuthOptions): Promise<AuthResult>;
  extractWWWAuthenticateParams(response: Response): { resourceMetadataUrl?: URL; scope?: string; error?: string; errorDescription?: string };
  UnauthorizedError: new (message?: string) => Error;
  /** v1 only: marks a fetch so v1's auth() leaves its redirects to it (redirectPolicy 'follow'). */
  leaveRedirects?: (fetchFn: FetchLike) => FetchLike;
  /** v2 only: what the callback of an authorization that failed is checked with before its error is shown. */
  callback?: {
    discoverMetadata(serverUrl: URL, fetchFn: FetchLike, resourceMetadataUrl: URL | undefined): Promise<IssuerMetadata | undefined>;
    validateIssuer(options: { iss: string | undefined; expectedIssuer: string | undefined; issParameterSupported: boolean }): void;
    OAuthError: new (code: string, message: string, uri?: string) => Error;
  };
  /**
   * v2 only: DPoP (RFC 9449, SEP-1932) on the resource server's requests, for a provider with `dpop()`:
   * a proof per request with the `DPoP` scheme for a DPoP-bound token, and the server's nonces.
   */
  withDpop?: (provider: OAuthClientProvider) => (next: FetchLike) => FetchLike;
  /** v2 only: the error a 403 insufficient_scope ends in when the transport may not step up. */
  InsufficientScopeError?: new (options: {
    requiredScope?: string;
    resourceMetadataUrl?: URL;
    errorDescription?: string;
  }) => Error;
}

export type SdkGeneration = 1 | 2;

const loaded = new Map<SdkGeneration, Promise<OAuthSdk | undefined>>();

function load(generation: SdkGeneration): Promise<OAuthSdk | undefined> {
  let loading = loaded.get(generation);
  if (!loading) {
    loading = generation === 1 ? loadV1() : loadV2();
    loaded.set(generation, loading);
  }
  return loading;
}

/**
 * The OAuth flow of the installed SDK: of `prefer` when it is installed (the generation whose Client drives
 * the transport, when known), else v1's, else v2's.
 */
export async function loadOAuthSdk(prefer: SdkGeneration = 1): Promise<OAuthSdk> {
  for (const generation of prefer === 2 ? ([2, 1] as const) : ([1, 2] as const)) {
    const sdk = await load(generation);
    if (sdk) return sdk;
  }
  throw new Error('authProvider needs the MCP SDK for its OAuth flow: install @modelcontextprotocol/sdk (v1) or @modelcontextprotocol/client (v2)');
}

/** The one SDK generation installed, or undefined when both are (or neither). */
export async function onlyInstalledGeneration(): Promise<SdkGeneration | undefined> {
  const [v1, v2] = await Promise.all([load(1), load(2)]);
  if (v1 && !v2) return 1;
  if (v2 && !v1) return 2;
  return undefined;
}

async function loadV1(): Promise<OAuthSdk | undefined> {
  // Each import() carries its own catch: a bundler then leaves an SDK that is not installed to fail here,
  // at run time, instead of failing the application's build (esbuild's rule for unresolvable imports).
  const [auth, transport] = await Promise.all([import('@modelcontextprotocol/sdk/client/auth.js').catch(notInstalled), import('@modelcontextprotocol/sdk/shared/transport.js').catch(notInstalled)]);
  if (!auth || !transport) return undefined;
  return {
    generation: 1,
    auth: auth.auth as OAuthSdk['auth'],
    extractWWWAuthenticateParams: auth.extractWWWAuthenticateParams,
    UnauthorizedError: auth.UnauthorizedError,
    leaveRedirects: transport.fetchLeavingRedirects,
  };
}

async function loadV2(): Promise<OAuthSdk | undefined> {
  const v2 = await import('@modelcontextprotocol/client').catch(notInstalled);
  if (!v2) return undefined;
  return {
    generation: 2,
    auth: v2.auth as unknown as OAuthSdk['auth'],
    extractWWWAuthenticateParams: v2.extractWWWAuthenticateParams,
    UnauthorizedError: v2.UnauthorizedError,
    callback: {
      async discoverMetadata(serverUrl, fetchFn, resourceMetadataUrl) {
        const info = await v2.discoverOAuthServerInfo(serverUrl, { fetchFn, resourceMetadataUrl });
        return info.authorizationServerMetadata as IssuerMetadata | undefined;
      },
      validateIssuer: v2.validateAuthorizationResponseIssuer,
      OAuthError: v2.OAuthError as unknown as new (code: string, message: string, uri?: string) => Error,
    },
    InsufficientScopeError: v2.InsufficientScopeError as unknown as OAuthSdk['InsufficientScopeError'],
    withDpop: v2.withDpopFromProvider as unknown as OAuthSdk['withDpop'],
  };
}

/** A missing package resolves to undefined; any other failure to load it is a real error. */
function notInstalled(error: unknown): undefined {
  if (runtime.isModuleNotFound(error)) return undefined;
  throw error;
}
