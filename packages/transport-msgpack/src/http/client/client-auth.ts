import type { FetchLike, OAuthClientProvider, TokenAuthProvider } from '../../mcp/types.js';
import { StreamableHTTPError } from '../errors.js';
import { readAuthorizationCallback, type AuthorizationCallback } from './auth-callback.js';
import { loadOAuthSdk, type AuthOptions, type AuthResult, type OAuthSdk } from './oauth-sdk.js';
import { scopeUnion, widensGrant } from './scope-union.js';
import type { SdkGenerationChoice } from './sdk-generation.js';

/** What one request (POST or GET, with its retries) has already tried, so it never loops. */
export interface AuthAttempt {
  reauthorized: boolean;
  stepUps: number;
}

export const freshAttempt = (): AuthAttempt => ({ reauthorized: false, stepUps: 0 });

/** Step-up re-authorizations per request, as SDK v2's default `maxStepUpRetries`. */
export const MAX_STEP_UPS = 1;

/** SDK v2's mark on an error that left a transport's auth path: its Client then reports it as is. */
const AUTH_SEAM_ESCAPE = Symbol.for('mcp.authSeamEscape');

/** The provider's members the transport reads besides `tokens()`: SDK v2's minimal AuthProvider form. */
interface ProviderShape {
  tokens?(): { access_token: string; scope?: string } | undefined | Promise<{ access_token: string; scope?: string } | undefined>;
  clientInformation?(): unknown;
  token?(): string | undefined | Promise<string | undefined>;
  onUnauthorized?(context: { response: Response; serverUrl: URL; fetchFn: FetchLike }): Promise<void>;
  discoveryState?(): unknown;
}

/**
 * The OAuth side of the HTTP client, with the behaviour of the StreamableHTTPClientTransport of the SDK
 * whose Client drives it (sdk-generation.ts decides which, before the first request):
 * - the provider's access token as `Authorization: Bearer`;
 * - a 401: that SDK's auth() (discovery, registration, refresh or redirect), then one retry; under v2 the
 *   challenge's scope joins the scopes asked for so far, and a minimal v2 AuthProvider (`token()`) gets its
 *   `onUnauthorized()` instead;
 * - a 403 `insufficient_scope` (SEP-2350 step-up): auth() for the union of the scopes asked for, granted and
 *   challenged, forcing a new authorization when that union is more than the token has (a refresh cannot
 *   widen a grant), then one retry per request;
 * - UnauthorizedError (that SDK's class) when the user has to authorize in a browser first; finish() then
 *   redeems the code with its `iss` (auth-callback.ts).
 * An error leaving this path carries v2's auth-seam mark, so a v2 Client reports it as it is (rather than
 * as a failed version negotiation when its probe met the 401).
 */
export class ClientAuth {
  private resourceMetadataUrl: URL | undefined;
  private scope: string | undefined;
  private readonly shape: ProviderShape;
  /** A full OAuthClientProvider (v2's test: tokens() and clientInformation()), not v2's minimal AuthProvider. */
  private readonly oauth: boolean;

  private readonly provider: OAuthClientProvider;

  constructor(
    given: OAuthClientProvider | TokenAuthProvider,
    private readonly serverUrl: URL,
    private readonly fetchFn: FetchLike,
    /** redirectPolicy 'follow': the SDK's auth() must leave redirects to fetchFn too. */
    private readonly followRedirects: boolean,
    private readonly generation: SdkGenerationChoice,
  ) {
    this.provider = given as OAuthClientProvider;
    this.shape = given as ProviderShape;
    this.oauth = typeof this.shape.tokens === 'function' && (typeof this.shape.clientInformation === 'function' || typeof this.shape.token !== 'function');
  }

  /** The SDK whose flow runs, loaded. */
  async sdk(): Promise<OAuthSdk> {
    return loadOAuthSdk(await this.generation.resolve());
  }

  async accessToken(): Promise<string | undefined> {
    if (!this.oauth) return (await this.shape.token?.()) ?? undefined;
    return (await this.provider.tokens())?.access_token;
  }

  async authorizationHeader(): Promise<string | undefined> {
    const token = await this.accessToken();
    return token ? `Bearer ${token}` : undefined;
  }

  /**
   * For a 401 or 403 reply: authorizes and returns true when the request should be sent again, false when
   * the reply is not about authorization. Throws when authorization needs the user (UnauthorizedError) or
   * the server refuses again after this request already authorized (it would otherwise loop).
   */
  async recover(response: Response, attempt: AuthAttempt): Promise<boolean> {
    const sdk = await this.sdk();
    try {
      if (response.status === 401) {
        await this.unauthorized(sdk, response, attempt);
        return true;
      }
      const challenge = sdk.extractWWWAuthenticateParams(response);
      if (response.status === 403 && challenge.error === 'insufficient_scope') {
        await this.stepUp(sdk, challenge, attempt);
        return true;
      }
      return false;
    } catch (error) {
      // Marked whatever the generation: a v2 Client then reports a v1 flow's error as it is too.
      throw markAuthSeamEscape(error);
    }
  }

  /** Exchanges the authorization response for tokens (the provider saves them). */
  async finish(callback: AuthorizationCallback, iss?: string): Promise<void> {
    const sdk = await this.sdk();
    if (!this.oauth) throw new sdk.UnauthorizedError('finishAuth requires an OAuthClientProvider');
    const fetchFn = this.authFetch(sdk);
    const { code, iss: issuer } = await readAuthorizationCallback(callback, iss, {
      sdk,
      provider: this.shape,
      serverUrl: this.serverUrl,
      fetchFn,
      resourceMetadataUrl: this.resourceMetadataUrl,
    });
    const result = await this.run(sdk, { authorizationCode: code, iss: issuer, resourceMetadataUrl: this.resourceMetadataUrl, scope: this.scope });
    if (result !== 'AUTHORIZED') throw new sdk.UnauthorizedError('Failed to authorize');
  }

  private async unauthorized(sdk: OAuthSdk, response: Response, attempt: AuthAttempt): Promise<void> {
    if (attempt.reauthorized) throw new StreamableHTTPError(401, 'Server returned 401 after successful authentication', { statusText: response.statusText });
    attempt.reauthorized = true;
    const challenge = sdk.extractWWWAuthenticateParams(response);
    if (sdk.generation === 1) {
      // v1's transport: the latest challenge is the one that counts (a missing parameter clears the old one).
      this.resourceMetadataUrl = challenge.resourceMetadataUrl;
      this.scope = challenge.scope;
      return this.authorize(sdk, { resourceMetadataUrl: this.resourceMetadataUrl, scope: this.scope });
    }
    // v2's transport: a challenge's scope adds to those asked for so far (kept for finishAuth and step-up);
    // auth() itself runs for this challenge.
    if (response.headers.has('www-authenticate')) {
      this.resourceMetadataUrl = challenge.resourceMetadataUrl;
      this.scope = scopeUnion(this.scope, challenge.scope);
    }
    if (!this.oauth) {
      if (!this.shape.onUnauthorized) throw new sdk.UnauthorizedError();
      return this.shape.onUnauthorized({ response, serverUrl: this.serverUrl, fetchFn: this.authFetch(sdk) });
    }
    return this.authorize(sdk, { resourceMetadataUrl: challenge.resourceMetadataUrl, scope: challenge.scope });
  }

  private async stepUp(sdk: OAuthSdk, challenge: { resourceMetadataUrl?: URL; scope?: string; errorDescription?: string }, attempt: AuthAttempt): Promise<void> {
    if (!this.oauth && sdk.InsufficientScopeError) {
      throw new sdk.InsufficientScopeError({ requiredScope: challenge.scope, resourceMetadataUrl: challenge.resourceMetadataUrl, errorDescription: challenge.errorDescription });
    }
    if (attempt.stepUps >= MAX_STEP_UPS) throw new StreamableHTTPError(403, 'Server returned 403 after trying upscoping');
    attempt.stepUps++;
    if (challenge.resourceMetadataUrl) this.resourceMetadataUrl = challenge.resourceMetadataUrl;
    const granted = (await this.shape.tokens?.())?.scope;
    this.scope = scopeUnion(this.scope, granted, challenge.scope);
    await this.authorize(sdk, { resourceMetadataUrl: this.resourceMetadataUrl, scope: this.scope, forceReauthorization: widensGrant(this.scope, granted) });
  }

  private async authorize(sdk: OAuthSdk, options: Omit<AuthOptions, 'serverUrl' | 'fetchFn'>): Promise<void> {
    if ((await this.run(sdk, options)) !== 'AUTHORIZED') throw new sdk.UnauthorizedError();
  }

  private run(sdk: OAuthSdk, options: Omit<AuthOptions, 'serverUrl' | 'fetchFn'>): Promise<AuthResult> {
    // v1's auth() has no forceReauthorization: it refreshes whenever the provider holds a refresh token, so
    // for a forced one it sees the provider without that token.
    const provider = options.forceReauthorization && sdk.generation === 1 ? withoutRefreshToken(this.provider) : this.provider;
    return sdk.auth(provider, { ...options, serverUrl: this.serverUrl, fetchFn: this.authFetch(sdk) });
  }

  private authFetch(sdk: OAuthSdk): FetchLike {
    return this.followRedirects && sdk.leaveRedirects ? sdk.leaveRedirects(this.fetchFn) : this.fetchFn;
  }
}

/** The provider as it is, but for tokens(), which leaves out the refresh token. */
function withoutRefreshToken(provider: OAuthClientProvider): OAuthClientProvider {
  return new Proxy(provider, {
    get(target, property) {
      if (property === 'tokens') {
        return async () => {
          const tokens = (await target.tokens()) as ({ access_token: string; refresh_token?: string } & Record<string, unknown>) | undefined;
          if (!tokens) return tokens;
          const { refresh_token: _dropped, ...rest } = tokens;
          return rest;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Marks `error` (the same object) as v2's transports do for errors of their auth path. */
function markAuthSeamEscape(error: unknown): unknown {
  if ((typeof error === 'object' && error !== null) || typeof error === 'function') {
    try {
      Object.defineProperty(error, AUTH_SEAM_ESCAPE, { value: true, configurable: true });
    } catch {
      // A frozen error goes on unmarked.
    }
  }
  return error;
}
