import { isRecord } from '../jsonrpc/is-record.js';

/**
 * The native-bytes extension's name and version (SPEC.md, "Native bytes extension"). The client offers it
 * under `capabilities.experimental` in its initialize request; the server confirms it in its result.
 */
export const NATIVE_BYTES_CAPABILITY = 'mcp-msgpack/native-bytes';
export const NATIVE_BYTES_VERSION = 1;

/** The value both sides put under the key: `{ version: 1 }`. */
export interface NativeBytesCapability {
  version: number;
}

/** The version a peer announced under `experimental`, if it announced the extension at all. */
export function announcedVersion(capabilities: unknown): number | undefined {
  if (!isRecord(capabilities)) return undefined;
  const experimental = capabilities.experimental;
  if (!isRecord(experimental)) return undefined;
  const entry = experimental[NATIVE_BYTES_CAPABILITY];
  if (!isRecord(entry)) return undefined;
  const version = entry.version;
  return Number.isSafeInteger(version) && (version as number) >= 1 ? (version as number) : undefined;
}

/** A copy of `capabilities` with the extension announced (the original object is not touched). */
export function withCapability(capabilities: unknown): Record<string, unknown> {
  const base = isRecord(capabilities) ? capabilities : {};
  const experimental = isRecord(base.experimental) ? base.experimental : {};
  const entry: NativeBytesCapability = { version: NATIVE_BYTES_VERSION };
  return { ...base, experimental: { ...experimental, [NATIVE_BYTES_CAPABILITY]: entry } };
}

