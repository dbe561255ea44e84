import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Log } from '../log.js';

/** How long the bridge waits for the user to finish authorizing in the browser. */
export const AUTHORIZATION_WAIT_MS = 300_000;

const CALLBACK_PATH = '/oauth/callback';

/**
 * The SDK's OAuthClientProvider for one bridge process, with its state in memory (nothing written to disk:
 * a new process authorizes again) and the authorization redirect landing on a loopback callback server.
 * The transport drives it (discovery, dynamic registration, PKCE, refresh all happen in the SDK's auth());
 * the bridge only waits for the callback and hands its query (code, state, iss) to the transport's finishAuth().
 */
export class LoopbackOAuthProvider {
  private client: Record<string, unknown> | undefined;
  private savedTokens: { access_token: string } | undefined;
  private verifier = '';
  private discovery: unknown;
  private waiting: { resolve: (callback: URLSearchParams) => void; reject: (error: Error) => void } | undefined;

  private constructor(
    private readonly server: Server,
    readonly redirectUrl: string,
    private readonly log: Log,
    private readonly openBrowser: boolean,
  ) {}

  /** Starts the callback server on 127.0.0.1:port (0: any free port). */
  static async start(port: number, log: Log, openBrowser = true): Promise<LoopbackOAuthProvider> {
    let provider: LoopbackOAuthProvider | undefined;
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== CALLBACK_PATH) return void res.writeHead(404).end();
      const code = url.searchParams.get('code');
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      // The callback's error text is not shown here: until its `iss` is checked it may be an attacker's.
      res.end(code ? 'Authorized: you can close this window and go back to your MCP host.' : 'Authorization failed: see the bridge.');
      // The whole query goes to finishAuth(): its `iss` is checked against the authorization server's issuer
      // (RFC 9207) before the code is redeemed, or before an error callback's text is believed.
      provider?.waiting?.resolve(url.searchParams);
      if (provider) provider.waiting = undefined;
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    server.unref();
    const { port: bound } = server.address() as AddressInfo;
    provider = new LoopbackOAuthProvider(server, `http://127.0.0.1:${bound}${CALLBACK_PATH}`, log, openBrowser);
    return provider;
  }

  get clientMetadata() {
    return {
      client_name: 'mcp-msgpack-bridge',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() {
    return this.client;
  }

  saveClientInformation(information: Record<string, unknown>): void {
    this.client = information;
  }

  tokens() {
    return this.savedTokens;
  }

  saveTokens(tokens: { access_token: string }): void {
    this.savedTokens = tokens;
  }

  /** Kept with the verifier, so the SDK can check the code comes back from the server it went to. */
  saveDiscoveryState(state: unknown): void {
    this.discovery = state;
  }

  discoveryState(): unknown {
    return this.discovery;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.log(`authorize in your browser: ${authorizationUrl.href}`);
    if (this.openBrowser) openBrowser(authorizationUrl.href);
  }

  /** The query the browser brings back to the callback (code or error, state, iss), within AUTHORIZATION_WAIT_MS. */
  waitForCallback(): Promise<URLSearchParams> {
    return new Promise<URLSearchParams>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no authorization within ${AUTHORIZATION_WAIT_MS / 1000} s`)), AUTHORIZATION_WAIT_MS);
      timer.unref?.();
      this.waiting = {
        resolve: (callback) => (clearTimeout(timer), resolve(callback)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      };
    });
  }

  close(): void {
    this.server.close();
  }
}

/** Best effort: the URL is on stderr anyway for hosts that show it. */
function openBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'cmd' : 'xdg-open';
  const args = process.platform === 'win32' ? ['/c', 'start', '', url] : [url];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // No browser here: the line on stderr is the way.
  }
}
