/**
 * The per-request envelope of MCP 2026-07-28: a request's `params._meta` names the protocol version, the
 * client's info and its capabilities, in place of the 2025 session's initialize. Read by the HTTP
 * transports (routing, header checks) and by the native-bytes extension (offered per request).
 */
import { isRecord } from './is-record.js';

/** The `_meta` key whose presence makes a request a 2026-07-28 one (its "envelope claim"). */
export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo';
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';

/** The first revision of the stateless era; revisions are ISO dates, so they compare as strings. */
export const FIRST_MODERN_PROTOCOL_VERSION = '2026-07-28';
/** The stateless revisions this package serves. */
export const SUPPORTED_MODERN_PROTOCOL_VERSIONS: readonly string[] = [FIRST_MODERN_PROTOCOL_VERSION];

export function isModernProtocolVersion(version: string): boolean {
  return version >= FIRST_MODERN_PROTOCOL_VERSION;
}

/** The protocol version a message's `params._meta` claims, when it carries the claim as a string. */
export function envelopeVersion(params: unknown): string | undefined {
  const meta = metaOf(params);
  const value = meta?.[PROTOCOL_VERSION_META_KEY];
  return typeof value === 'string' ? value : undefined;
}

/** Whether `params._meta` carries the claim key at all (a malformed value still counts as a claim). */
export function hasEnvelopeClaim(params: unknown): boolean {
  const meta = metaOf(params);
  return meta !== undefined && PROTOCOL_VERSION_META_KEY in meta;
}

export function metaOf(params: unknown): Record<string, unknown> | undefined {
  if (!isRecord(params)) return undefined;
  const meta = params._meta;
  return isRecord(meta) ? meta : undefined;
}
