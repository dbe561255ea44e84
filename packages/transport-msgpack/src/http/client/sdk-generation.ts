import { envelopeVersion, isModernProtocolVersion } from '../../jsonrpc/envelope.js';
import type { JSONRPCMessage } from '../../mcp/types.js';
import { onlyInstalledGeneration, type SdkGeneration } from './oauth-sdk.js';

/**
 * Members only SDK v2's OAuthClientProvider has (v1 never calls them), and the minimal v2 AuthProvider's
 * `token()`: a provider written for v2 says which flow it expects.
 */
const V2_PROVIDER_MEMBERS = ['dpop', 'scopeForRefresh', 'saveAuthorizationServerUrl', 'authorizationServerUrl', 'saveResourceUrl', 'resourceUrl', 'token'];

/**
 * Which SDK generation's OAuth flow (auth(), its errors) a client transport runs, decided before it needs
 * it, so the first 401 of a connection already gets the flow of the SDK whose Client drives it:
 * 1. the `oauthSdk` option, when given;
 * 2. v2 as soon as anything shows a v2 Client or a v2 provider: the provider has a v2-only member; v2's
 *    Client called setSupportedProtocolVersions() (its legacy connect does, before start()); a message
 *    carries the 2026-07-28 envelope (v2's version probe, `server/discover`, is its first request, sent
 *    before setSupportedProtocolVersions(); SDK v1 never writes the envelope);
 * 3. otherwise the only SDK installed, and with both installed v1 (a v1 Client shows nothing of itself).
 * Once v2 is seen it stays: nothing later can show a v1 Client.
 */
export class SdkGenerationChoice {
  private seen: SdkGeneration | undefined;

  constructor(
    private readonly forced: SdkGeneration | undefined,
    provider: object | undefined,
  ) {
    if (provider && V2_PROVIDER_MEMBERS.some((member) => typeof (provider as Record<string, unknown>)[member] === 'function')) this.seen = 2;
  }

  /** SDK v2's Client drives the transport (setSupportedProtocolVersions). */
  sawV2Client(): void {
    this.seen = 2;
  }

  /** Learns from an outgoing message: the 2026-07-28 envelope is written by SDK v2's Client only. */
  noteMessage(message: JSONRPCMessage | JSONRPCMessage[]): void {
    if (this.seen || this.forced) return;
    const first = Array.isArray(message) ? message[0] : message;
    const version = first && 'method' in first ? envelopeVersion(first.params) : undefined;
    if (version !== undefined && isModernProtocolVersion(version)) this.seen = 2;
  }

  /** What is known without asking the installed packages (undefined: either would do). */
  get known(): SdkGeneration | undefined {
    return this.forced ?? this.seen;
  }

  /** The generation whose flow runs now. */
  async resolve(): Promise<SdkGeneration> {
    return this.known ?? (await onlyInstalledGeneration()) ?? 1;
  }
}
