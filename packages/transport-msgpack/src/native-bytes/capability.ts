import { isRecord } from '../jsonrpc/is-record.js';

/**
 * The native-bytes extension's identifier under `capabilities.extensions` (MCP's extension mechanism,
 * SEP-2133): `{vendor-prefix}/{name}`, the prefix being the reverse DNS name of the project's home
 * (github.com/mcp-msgpack). SPEC.md 8.1.
 */
export const NATIVE_BYTES_EXTENSION = 'io.github.mcp-msgpack/native-bytes';
/**
 * The key 0.1.0 used under `capabilities.experimental`. Still sent beside the extension and still read, so
 * a 0.1.0 peer, which knows only this one, keeps negotiating.
 */
export const NATIVE_BYTES_CAPABILITY = 'mcp-msgpack/native-bytes';
export const NATIVE_BYTES_VERSION = 1;

/** The value both sides put under either key: `{ version: 1 }`. */
export interface NativeBytesCapability {
  version: number;
}

/**
 * The version a peer announced, if it announced the extension at all. `extensions` wins over `experimental`
 * when both carry an entry (SPEC.md 8.1): only a peer that does not use `extensions` is read from the old key.
 */
export function announcedVersion(capabilities: unknown): number | undefined {
  if (!isRecord(capabilities)) return undefined;
  const declared = entryUnder(capabilities.extensions, NATIVE_BYTES_EXTENSION);
  if (declared !== undefined) return versionOf(declared);
  return versionOf(entryUnder(capabilities.experimental, NATIVE_BYTES_CAPABILITY));
}

/**
 * A copy of `capabilities` announcing the extension under both keys (the original object is not touched):
 * `extensions` for peers of MCP's extension mechanism, `experimental` for 0.1.0 peers.
 */
export function withCapability(capabilities: unknown): Record<string, unknown> {
  const base = isRecord(capabilities) ? capabilities : {};
  const experimental = isRecord(base.experimental) ? base.experimental : {};
  const extensions = isRecord(base.extensions) ? base.extensions : {};
  const entry = (): NativeBytesCapability => ({ version: NATIVE_BYTES_VERSION });
  return {
    ...base,
    experimental: { ...experimental, [NATIVE_BYTES_CAPABILITY]: entry() },
    extensions: { ...extensions, [NATIVE_BYTES_EXTENSION]: entry() },
  };
}

function entryUnder(table: unknown, key: string): unknown {
  return isRecord(table) ? table[key] : undefined;
}

function versionOf(entry: unknown): number | undefined {
  if (!isRecord(entry)) return undefined;
  const version = entry.version;
  return Number.isSafeInteger(version) && (version as number) >= 1 ? (version as number) : undefined;
}
