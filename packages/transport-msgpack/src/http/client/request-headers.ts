import type { JSONRPCMessage } from '../../mcp/types.js';
import type { MessageCodec, WireKind } from '../../codec/message-codec.js';
import { isReservedHeader, modernRequestHeaders } from '../modern-headers.js';
import type { ClientAuth } from './client-auth.js';
import { ACCEPT } from './client-media.js';
import { normalizeHeaders } from './redirects.js';

/**
 * The headers of the client's requests, and the session and protocol version they carry. The options'
 * `requestInit` headers win over the common ones; the transport's own POST headers win over everything.
 */
export class RequestHeaders {
  sessionId: string | undefined;
  protocolVersion: string | undefined;

  constructor(
    private readonly auth: ClientAuth | undefined,
    private readonly requestInit: RequestInit | undefined,
    sessionId: string | undefined,
  ) {
    this.sessionId = sessionId;
  }

  /** Every request's: authorization, session, protocol version, then the `requestInit` headers. */
  async common(): Promise<Headers> {
    const headers: Record<string, string> = {};
    const authorization = await this.auth?.authorizationHeader();
    if (authorization) headers['Authorization'] = authorization;
    if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion) headers['mcp-protocol-version'] = this.protocolVersion;
    return new Headers({ ...headers, ...normalizeHeaders(this.requestInit?.headers) });
  }

  /**
   * A POST's, for a body written by `codec` on a connection whose replies come on `replyWire`: the caller's per-send headers (SDK v2) but those the transport
   * owns, the SEP-2243 headers of a 2026-07-28 request, its Content-Type and what it accepts back.
   */
  async post(message: JSONRPCMessage | JSONRPCMessage[], codec: MessageCodec, replyWire: WireKind, callerHeaders: Readonly<Record<string, string>> | undefined): Promise<Headers> {
    const headers = await this.common();
    for (const [name, value] of Object.entries(callerHeaders ?? {})) if (!isReservedHeader(name)) headers.set(name, value);
    // SEP-2243: a 2026-07-28 request names its version, method and name in headers, on either wire (a
    // gateway cannot read a MessagePack body to route it).
    const derived = Array.isArray(message) ? undefined : modernRequestHeaders(message);
    if (derived) for (const [name, value] of Object.entries(derived)) headers.set(name, value);
    headers.set('content-type', codec.mediaType);
    // Replies follow the connection's wire, whatever this body is written in (SPEC.md 9.2); on MessagePack
    // the Accept also says we read a one-body reply in either encoding (9.6).
    headers.set('accept', ACCEPT[replyWire].post);
    return headers;
  }

  /** A GET stream's, on the wire in use once the common headers are ready, resuming after `resumptionToken` if given. */
  async get(wire: { readonly current: WireKind }, resumptionToken: string | undefined): Promise<Headers> {
    const headers = await this.common();
    headers.set('accept', ACCEPT[wire.current].get);
    if (resumptionToken) headers.set('last-event-id', resumptionToken);
    return headers;
  }

  /** Takes the session id a response assigns. */
  noteSession(response: Response): void {
    const sessionId = response.headers.get('mcp-session-id');
    if (sessionId) this.sessionId = sessionId;
  }
}
