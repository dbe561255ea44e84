import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, SUPPORTED_MODERN_PROTOCOL_VERSIONS, metaOf } from '../../../jsonrpc/envelope.js';

/**
 * The parts of an SDK v2 `Server` (`@modelcontextprotocol/server` 2.x) that its own HTTP entry
 * (`createMcpHandler`) sets on a per-request instance to serve 2026-07-28. They are not public API: the
 * SDK sets them through package-internal hooks (setNegotiatedProtocolVersion, installModernOnlyHandlers,
 * seedClientIdentityFromEnvelope), which a transport in another package cannot reach. Checked against
 * 2.4.0 by the interop tests; a server without this shape (SDK v1, a future v2 that moved them) is not
 * bound, and the handler answers its 2026-07-28 requests with "unsupported protocol version" (-32022),
 * which SDK v2 clients in auto mode take as the cue to fall back to 2025-11-25.
 */
interface V2ServerInternals {
  _supportedProtocolVersions: string[];
  _serverInfo?: unknown;
  getCapabilities?(): Record<string, unknown>;
  _negotiatedProtocolVersion?: string;
  _clientCapabilities?: unknown;
  _clientVersion?: unknown;
  _ondiscover(): unknown;
  setRequestHandler(method: string, handler: () => unknown): void;
}

function internalsOf(product: object): V2ServerInternals | undefined {
  const inner = (product as { server?: unknown }).server;
  const candidate = (typeof inner === 'object' && inner !== null ? inner : product) as Partial<V2ServerInternals>;
  if (typeof candidate._ondiscover !== 'function' || !Array.isArray(candidate._supportedProtocolVersions)) return undefined;
  if (typeof candidate.setRequestHandler !== 'function') return undefined;
  return candidate as V2ServerInternals;
}

/**
 * Marks a freshly made server (an McpServer or a Server of SDK v2) as serving `revision` for one request,
 * before it is connected, as `createMcpHandler` does: the revision joins its supported versions, it
 * answers `server/discover`, and it encodes results for that revision. False when the server is not one
 * that can serve it.
 */
export function bindModern(product: object, revision: string): boolean {
  const server = internalsOf(product);
  if (!server) return false;
  if (!server._supportedProtocolVersions.includes(revision)) server._supportedProtocolVersions = [...server._supportedProtocolVersions, revision];
  server.setRequestHandler('server/discover', () => server._ondiscover());
  server._negotiatedProtocolVersion = revision;
  return true;
}

/**
 * The modern revisions (2026-07-28 and later) a server can be served on here (bindModern gives it any of them); none for
 * a server that cannot (SDK v1): its requests get -32022, which lists these as the ones served.
 */
export function modernRevisionsOf(product: object): readonly string[] {
  return internalsOf(product) ? SUPPORTED_MODERN_PROTOCOL_VERSIONS : [];
}

/**
 * The client identity of a request's `_meta` backs the bound server's getClientCapabilities() and
 * getClientVersion() for that request, and replaces whatever an earlier request left on a reused instance.
 */
export function seedClientIdentity(product: object, params: unknown): void {
  const server = internalsOf(product);
  if (!server) return;
  const meta = metaOf(params);
  server._clientCapabilities = meta?.[CLIENT_CAPABILITIES_META_KEY];
  server._clientVersion = meta?.[CLIENT_INFO_META_KEY];
}

/** The served server's capabilities and identity, for the subscriptions/listen streams of the endpoint. */
export function listenContextOf(product: object): { capabilities: Record<string, unknown> | undefined; serverInfo: unknown } {
  const server = internalsOf(product);
  return { capabilities: server?.getCapabilities?.(), serverInfo: server?._serverInfo };
}
