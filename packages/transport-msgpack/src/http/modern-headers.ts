import { isRecord } from '../jsonrpc/is-record.js';
import { Buffer } from '../runtime/buffer.js';

/**
 * The standard request headers of MCP 2026-07-28 over HTTP (SEP-2243): `MCP-Protocol-Version`, `Mcp-Method`
 * and `Mcp-Name` mirror what the body says, so a gateway can route a request without reading its body —
 * the only way to route a MessagePack body. Both roles use this module: the client derives the headers
 * from each message, the server checks them against the decoded body (the revision and method as it
 * classifies the era, server/exchange/era.ts; Mcp-Name as the per-request path admits the request,
 * server/per-request/param-headers.ts).
 */

import { envelopeVersion } from '../jsonrpc/envelope.js';

/**
 * Which body field `Mcp-Name` mirrors, per method (SEP-2243's table, plus the task methods of SEP-2663), as
 * the SDK's client and server use it. Methods not listed carry no `Mcp-Name`.
 */
const NAME_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** The field `Mcp-Name` mirrors for this method and the string the body holds there, if the method has one. */
export function nameSource(method: string, params: unknown): { field: string; value: string | undefined } | undefined {
  const field = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method] : undefined;
  if (field === undefined) return undefined;
  const raw = isRecord(params) ? params[field] : undefined;
  return { field, value: typeof raw === 'string' ? raw : undefined };
}

/**
 * The headers a client sends with one message: for a request whose envelope claims a version, that
 * version, its method and (for the methods in the table) its name. Nothing for anything else, so no
 * 2026 header appears on a 2025 exchange (the connection's version header covers those).
 */
export function modernRequestHeaders(message: unknown): Record<string, string> | undefined {
  if (!isRecord(message) || typeof message.method !== 'string' || !('id' in message)) return undefined;
  const version = envelopeVersion(message.params);
  if (version === undefined) return undefined;
  const headers: Record<string, string> = { 'mcp-protocol-version': version, 'mcp-method': message.method };
  const name = nameSource(message.method, message.params)?.value;
  if (name !== undefined) headers['mcp-name'] = encodeHeaderValue(name);
  return headers;
}

/**
 * Headers a caller may not set per send: the transport derives them from the connection or the body,
 * and an override could only make the headers disagree with the body (the SDK refuses the same names).
 */
const RESERVED_HEADERS = new Set(['authorization', 'dpop', 'content-type', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-session-id']);

export function isReservedHeader(name: string): boolean {
  return RESERVED_HEADERS.has(name.toLowerCase());
}

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A header value for a string: as it is when it is plain visible ASCII (tabs allowed, no edge
 * whitespace), else `=?base64?<base64 of its UTF-8>?=`, the spec's sentinel form.
 */
export function encodeHeaderValue(value: string): string {
  return needsSentinel(value) ? `${SENTINEL_PREFIX}${Buffer.from(value, 'utf8').toString('base64')}${SENTINEL_SUFFIX}` : value;
}

/** The string a header value stands for; undefined for a sentinel whose payload is not canonical base64 of UTF-8. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))) return value;
  const payload = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!CANONICAL_BASE64.test(payload)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(payload, 'base64'));
  } catch {
    return undefined;
  }
}

function needsSentinel(value: string): boolean {
  if (value.length === 0) return true;
  if (value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX)) return true;
  if (value !== value.trim()) return true;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c !== 9 && (c < 32 || c > 126)) return true;
  }
  return false;
}
