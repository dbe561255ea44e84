import { SUPPORTED_PROTOCOL_VERSIONS } from '../../../mcp/protocol-versions.js';
import type { Refusal } from '../exchange/responses.js';

type Headers = { get(name: string): string | null };

/** What a request after initialize is checked against. */
export interface SessionState {
  /** Whether the transport has sessions at all (stateless mode checks nothing). */
  readonly stateful: boolean;
  readonly initialized: boolean;
  readonly sessionId: string | undefined;
}

/** Why a request cannot be served in this session, as the SDK words it; undefined when it can. */
export function sessionProblem(headers: Headers, session: SessionState): Refusal | undefined {
  if (!session.stateful) return undefined;
  if (!session.initialized) return { status: 400, code: -32000, message: 'Bad Request: Server not initialized' };
  const sessionId = headers.get('mcp-session-id');
  if (!sessionId) return { status: 400, code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' };
  if (sessionId !== session.sessionId) return { status: 404, code: -32001, message: 'Session not found' };
  return undefined;
}

/** A MCP-Protocol-Version header this package does not speak; an absent one is accepted. */
export function protocolVersionProblem(headers: Headers): Refusal | undefined {
  const version = headers.get('mcp-protocol-version');
  if (version === null || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  const message = `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`;
  return { status: 400, code: -32000, message };
}
