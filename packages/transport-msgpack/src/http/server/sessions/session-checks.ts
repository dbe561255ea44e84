import type { Refusal } from '../exchange/responses.js';
import { SESSION_NOT_FOUND, TRANSPORT_ERROR } from '../../../jsonrpc/error-codes.js';

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
  if (!session.initialized) return { status: 400, code: TRANSPORT_ERROR, message: 'Bad Request: Server not initialized' };
  const sessionId = headers.get('mcp-session-id');
  if (!sessionId) return { status: 400, code: TRANSPORT_ERROR, message: 'Bad Request: Mcp-Session-Id header is required' };
  if (sessionId !== session.sessionId) return { status: 404, code: SESSION_NOT_FOUND, message: 'Session not found' };
  return undefined;
}
