import { isModernProtocolVersion } from '../../../jsonrpc/envelope.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../../mcp/protocol-versions.js';
import { TRANSPORT_ERROR } from '../../../jsonrpc/error-codes.js';
import type { Refusal } from './responses.js';

/**
 * The revision a request's headers name, read once per request: the handler routes on it (a fresh or kept
 * server bound to that revision, or a 2025-11-25 session) and hands it to the transport, which checks the
 * body against it (classifyEra) instead of reading the header again.
 */
export interface RequestEra {
  /** MCP-Protocol-Version without the whitespace HTTP allows around it; undefined when absent. */
  readonly versionHeader: string | undefined;
  /** The modern revision (2026-07-28 and later) the header names, served per request; undefined: the session path. */
  readonly modern: string | undefined;
}

/** The era of a request, from its MCP-Protocol-Version header. */
export function requestEra(headers: { get(name: string): string | null }): RequestEra {
  const versionHeader = trimmed(headers.get('mcp-protocol-version'));
  return { versionHeader, modern: versionHeader !== undefined && isModernProtocolVersion(versionHeader) ? versionHeader : undefined };
}

/** A header value without the optional whitespace HTTP allows around it; undefined when absent. */
export function trimmed(value: string | null): string | undefined {
  return value === null ? undefined : value.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** A MCP-Protocol-Version header this package does not speak; an absent one is accepted. */
export function protocolVersionProblem(headers: { get(name: string): string | null }): Refusal | undefined {
  const version = headers.get('mcp-protocol-version');
  if (version === null || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  const message = `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`;
  return { status: 400, code: TRANSPORT_ERROR, message };
}
