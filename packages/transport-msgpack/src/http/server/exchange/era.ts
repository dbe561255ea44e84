import { isRecord } from '../../../jsonrpc/is-record.js';
import { CLIENT_CAPABILITIES_META_KEY, SUPPORTED_MODERN_PROTOCOL_VERSIONS, envelopeVersion, hasEnvelopeClaim, isModernProtocolVersion, metaOf } from '../../../jsonrpc/envelope.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../../mcp/protocol-versions.js';
import { HEADER_MISMATCH, INVALID_PARAMS, INVALID_REQUEST, TRANSPORT_ERROR, UNSUPPORTED_PROTOCOL_VERSION } from '../../../jsonrpc/error-codes.js';
import type { Refusal } from './responses.js';

// The era of one request, decided in two steps and never again: its headers read once (requestEra; the
// handler routes on them), then its decoded body classified against them (classifyEra; the incoming POST).

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

/** How one POST body is to be served: on the session path (2025-11-25 and before), on the per-request path of a modern revision (2026-07-28 and later), or refused. */
export type Era = { kind: 'session' } | { kind: 'modern'; revision: string } | { kind: 'refuse'; refusal: Refusal };

interface HeaderSource {
  get(name: string): string | null;
}

/**
 * Classifies a decoded POST body as the SDK's HTTP entry does (body first, headers cross-checked), so
 * a client sees the same answer from this server as from `createMcpHandler`:
 * - a request whose `params._meta` claims a protocol version is a 2026-07-28 request; its
 *   `MCP-Protocol-Version` and `Mcp-Method` headers must be present and agree with the body, else 400 with
 *   -32020 (HeaderMismatch) and `data.mismatch = { header, body }` (the headers that mirror its params,
 *   `Mcp-Name` among them, are the per-request path's to check when it admits the request:
 *   per-request/param-headers.ts);
 * - a notification with the claim (or with a modern version header) is modern; a header that
 *   disagrees with it is -32020 too, a missing one is not (the spec requires them on requests only);
 * - a modern version header on a body without the claim, or on `initialize`, is refused;
 * - everything else (initialize, un-enveloped requests, responses, batches of those) is 2025-era.
 * `requestEra` is what the headers say (read once per request, by the handler when there is one).
 */
export function classifyEra(requestEra: RequestEra, headers: HeaderSource, body: unknown, served: readonly string[] = SUPPORTED_MODERN_PROTOCOL_VERSIONS): Era {
  const { versionHeader } = requestEra;
  const methodHeader = trimmed(headers.get('mcp-method'));
  if (Array.isArray(body)) {
    if (body.some((item) => isRecord(item) && hasEnvelopeClaim(item.params))) {
      return refuse(400, INVALID_REQUEST, 'Bad Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later');
    }
    return { kind: 'session' };
  }
  if (!isRecord(body) || typeof body.method !== 'string') return { kind: 'session' };
  const method = body.method;
  const isRequest = 'id' in body;
  const headerIsModern = requestEra.modern !== undefined;
  const claimed = hasEnvelopeClaim(body.params);
  const claimedVersion = envelopeVersion(body.params);

  if (isRequest && method === 'initialize' && !(claimedVersion !== undefined && isModernProtocolVersion(claimedVersion))) {
    if (headerIsModern) {
      return mismatch(versionHeader, 'an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header');
    }
    return { kind: 'session' };
  }
  if (!claimed) {
    if (!headerIsModern) return { kind: 'session' };
    if (isRequest) {
      return refuse(
        400,
        INVALID_PARAMS,
        `Invalid params: the MCP-Protocol-Version header names protocol revision ${versionHeader}, but the request is missing the required per-request envelope key(s): io.modelcontextprotocol/protocolVersion`,
      );
    }
    if (methodHeader !== undefined && methodHeader !== method) {
      return mismatch(methodHeader, `the notification body names method ${method} but the Mcp-Method header names ${methodHeader}`);
    }
    return supported(versionHeader!, served);
  }
  if (claimedVersion === undefined) {
    return refuse(400, INVALID_PARAMS, 'Invalid _meta envelope for protocol revision 2026-07-28: io.modelcontextprotocol/protocolVersion: expected a protocol version string');
  }
  const what = isRequest ? 'body envelope' : 'notification envelope';
  if (versionHeader !== undefined && versionHeader !== claimedVersion) {
    return mismatch(versionHeader, `the ${what} names protocol version ${claimedVersion} but the MCP-Protocol-Version header names ${versionHeader}`);
  }
  if (methodHeader !== undefined && methodHeader !== method) {
    const subject = isRequest ? 'body' : 'notification body';
    return mismatch(methodHeader, `the ${subject} names method ${method} but the Mcp-Method header names ${methodHeader}`);
  }
  if (!isModernProtocolVersion(claimedVersion)) return { kind: 'session' };
  // A request's envelope must declare the client's capabilities too (an empty object declares none).
  if (isRequest && !isRecord(metaOf(body.params)?.[CLIENT_CAPABILITIES_META_KEY])) {
    const key = CLIENT_CAPABILITIES_META_KEY;
    const problem = key in metaOf(body.params)! ? 'expected an object' : 'missing';
    return refuse(400, INVALID_PARAMS, `Invalid _meta envelope for protocol revision 2026-07-28: ${key}: ${problem}`, { envelope: { key, problem } });
  }
  if (!isRequest) return supported(claimedVersion, served);
  const era = supported(claimedVersion, served);
  if (era.kind !== 'modern') return era;
  // Presence: required on requests only, checked once the revision is known to be served.
  if (versionHeader === undefined) {
    return mismatch('(missing)', `the body envelope names protocol version ${claimedVersion} but the required MCP-Protocol-Version header is absent`);
  }
  if (methodHeader === undefined) return mismatch('(missing)', `the body names method ${method} but the required Mcp-Method header is absent`);
  return era;
}

/**
 * A modern revision this endpoint serves, or the SDK's UnsupportedProtocolVersion answer (-32022). An
 * endpoint that serves no modern revision (an SDK v1 server) lists the handshake versions it serves instead:
 * an empty list reads as "modern-only and disjoint", and a client probing with `server/discover` (the
 * Python SDK's default) then gives up rather than falling back to `initialize`.
 */
function supported(revision: string, served: readonly string[]): Era {
  if (served.includes(revision)) return { kind: 'modern', revision };
  return refuse(400, UNSUPPORTED_PROTOCOL_VERSION, `Unsupported protocol version: ${revision}`, {
    supported: served.length > 0 ? [...served] : [...SUPPORTED_PROTOCOL_VERSIONS],
    requested: revision,
  });
}

/** The SDK's HeaderMismatch shape: the header's value (or "(missing)") and what the body says. */
function mismatch(header: string | undefined, body: string): Era {
  return refuse(400, HEADER_MISMATCH, `Bad Request: the request headers and body disagree: ${body}`, { mismatch: { header, body } });
}

function refuse(status: number, code: number, message: string, data?: unknown): Era {
  return { kind: 'refuse', refusal: data === undefined ? { status, code, message } : { status, code, message, data } };
}
