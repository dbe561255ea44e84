import type { FetchLike, OAuthClientProvider } from '../../mcp/types.js';
import { runtime } from '../../runtime/current.js';

/**
 * The OAuth flow (discovery, dynamic registration, PKCE, token refresh) is the installed SDK's, loaded on
 * first use only, so the package runs without any SDK until an `authProvider` needs one: SDK v1's
 * `client/auth` (`@modelcontextprotocol/sdk`) or v2's `@modelcontextprotocol/client`.
 */

export type AuthResult = 'AUTHORIZED' | 'REDIRECT';

export interface AuthOptions {
  serverUrl: URL;
  authorizationCode?: string;
  resourceMetadataUrl?: URL;
  scope?: string;
  fetchFn: FetchLike;
}

export interface OAuthSdk {
  generation: 1 | 2;
  auth(provider: OAuthClientProvider, options: AuthOptions): Promise<AuthResult>;
  extractWWWAuthenticateParams(response: Response): { resourceMetadataUrl?: URL; scope?: string; error?: string };
  UnauthorizedError: new (message?: string) => Error;
  /** v1 only: marks a fetch so v1's auth() leaves its redirects to it (redirectPolicy 'follow'). */
  leaveRedirects?: (fetchFn: FetchLike) => FetchLike;
}

export type SdkGeneration = 1 | 2;

const loaded = new Map<SdkGeneration, Promise<OAuthSdk | undefined>>();

/**
 * The OAuth flow of the installed SDK: of `prefer` when it is installed (the generation whose Client drives
 * the transport, when known), else v1's, else v2's.
 */
export async function loadOAuthSdk(prefer: SdkGeneration = 1): Promise<OAuthSdk> {
  for (const generation of prefer === 2 ? ([2, 1] as const) : ([1, 2] as const)) {
    let loading = loaded.get(generation);
    if (!loading) {
      loading = generation === 1 ? loadV1() : loadV2();
      loaded.set(generation, loading);
    }
    const sdk = await loading;
    if (sdk) return sdk;
  }
  throw new Error('authProvider needs the MCP SDK for its OAuth flow: install @modelcontextprotocol/sdk (v1) or @modelcontextprotocol/client (v2)');
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
  };
}

/** A missing package resolves to undefined; any other failure to load it is a real error. */
function notInstalled(error: unknown): undefined {
  if (runtime.isModuleNotFound(error)) return undefined;
  throw error;
}
