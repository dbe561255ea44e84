import type { FetchLike, OAuthClientProvider } from '../../mcp/types.js';
import { StreamableHTTPError } from '../errors.js';
import { loadOAuthSdk, type AuthResult, type OAuthSdk, type SdkGeneration } from './oauth-sdk.js';

/** What one request (POST or GET, with its retries) has already tried, so it never loops. */
export interface AuthAttempt {
  reauthorized: boolean;
  upscoped: boolean;
}

export const freshAttempt = (): AuthAttempt => ({ reauthorized: false, upscoped: false });

/**
 * The OAuth side of the HTTP client, with the SDK's StreamableHTTPClientTransport's behaviour: the
 * provider's access token as `Authorization: Bearer`; after a 401 the installed SDK's auth() (discovery,
 * refresh or redirect; see oauth-sdk.ts), then one retry; after a 403 `insufficient_scope`, auth() for the scope the server names, then
 * one retry; UnauthorizedError when the user has to authorize in a browser first.
 */
export class ClientAuth {
  private resourceMetadataUrl: URL | undefined;
  private scope: string | undefined;

  constructor(
    private readonly provider: OAuthClientProvider,
    private readonly serverUrl: URL,
    private readonly fetchFn: FetchLike,
    /** redirectPolicy 'follow': the SDK's auth() must leave redirects to fetchFn too. */
    private readonly followRedirects: boolean,
    /** The generation of the SDK whose Client drives the transport, once it is known. */
    private readonly generation: () => SdkGeneration | undefined,
  ) {}

  private sdk(): Promise<OAuthSdk> {
    return loadOAuthSdk(this.generation());
  }

  async authorizationHeader(): Promise<string | undefined> {
    const tokens = await this.provider.tokens();
    return tokens ? `Bearer ${tokens.access_token}` : undefined;
  }

  /**
   * For a 401 or 403 reply: authorizes and returns true when the request should be sent again, false when
   * the reply is not about authorization. Throws when authorization needs the user (UnauthorizedError) or
   * the server refuses again after this request already authorized (it would otherwise loop).
   */
  async recover(response: Response, attempt: AuthAttempt): Promise<boolean> {
    const { resourceMetadataUrl, scope, error } = (await this.sdk()).extractWWWAuthenticateParams(response);
    if (response.status === 401) {
      if (attempt.reauthorized) throw new StreamableHTTPError(401, 'Server returned 401 after successful authentication');
      attempt.reauthorized = true;
      // The latest challenge is the one that counts, as in the SDK (a missing parameter clears the old one).
      this.resourceMetadataUrl = resourceMetadataUrl;
      this.scope = scope;
      await this.authorize();
      return true;
    }
    if (response.status === 403 && error === 'insufficient_scope') {
      if (attempt.upscoped) throw new StreamableHTTPError(403, 'Server returned 403 after trying upscoping');
      attempt.upscoped = true;
      if (scope) this.scope = scope;
      if (resourceMetadataUrl) this.resourceMetadataUrl = resourceMetadataUrl;
      await this.authorize();
      return true;
    }
    return false;
  }

  /** Exchanges the code from the authorization redirect for tokens (the provider saves them). */
  async finish(authorizationCode: string): Promise<void> {
    if ((await this.run(authorizationCode)) !== 'AUTHORIZED') throw new (await this.sdk()).UnauthorizedError('Failed to authorize');
  }

  private async authorize(): Promise<void> {
    if ((await this.run()) !== 'AUTHORIZED') throw new (await this.sdk()).UnauthorizedError();
  }

  private async run(authorizationCode?: string): Promise<AuthResult> {
    const sdk = await this.sdk();
    return sdk.auth(this.provider, {
      serverUrl: this.serverUrl,
      authorizationCode,
      resourceMetadataUrl: this.resourceMetadataUrl,
      scope: this.scope,
      fetchFn: this.followRedirects && sdk.leaveRedirects ? sdk.leaveRedirects(this.fetchFn) : this.fetchFn,
    });
  }
}
