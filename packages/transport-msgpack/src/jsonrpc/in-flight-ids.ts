import type { JSONRPCMessage, RequestId } from '../mcp/types.js';
import { isCancelledNotification } from './kinds.js';
import { INVALID_REQUEST } from './error-codes.js';

/**
 * The error a request gets when its id is already in flight from the same peer (SPEC.md 5.2): the SDK keys
 * its handlers and replies by id, so a second request under a live id would take the first one's place and
 * leave one of them unanswered for good. The first request is unaffected.
 */
export function duplicateIdError(id: RequestId, where: string): { code: number; message: string; data: { reason: string } } {
  const shown = typeof id === 'string' ? `"${id}"` : String(id);
  return { code: INVALID_REQUEST, message: `Invalid Request: request id ${shown} is already in flight ${where}`, data: { reason: 'duplicate-id' } };
}

/**
 * The ids of the requests a peer sent that are not answered yet, on one connection. A request is admitted
 * unless its id is among them; an id leaves when the answer is sent, or when the peer cancels the request
 * (the SDK sends no answer to a cancelled request).
 */
export class InFlightIds {
  /** Each id in flight, with its request's method. */
  private readonly ids = new Map<RequestId, string>();

  /** Whether an incoming message may go on: false for a request whose id is in flight. */
  admit(message: JSONRPCMessage): boolean {
    const record = message as unknown as Record<string, unknown>;
    if (!('method' in record)) return true;
    if (!('id' in record)) {
      if (isCancelledNotification(message)) this.ids.delete(message.params.requestId);
      return true;
    }
    const id = record.id as RequestId;
    if (this.ids.has(id)) return false;
    this.ids.set(id, String(record.method));
    return true;
  }

  /** An outgoing message: an answer takes its id out of flight. Returns the method it answers, if known. */
  settle(message: JSONRPCMessage): string | undefined {
    const record = message as unknown as Record<string, unknown>;
    if ('method' in record || !('id' in record)) return undefined;
    const method = this.ids.get(record.id as RequestId);
    this.ids.delete(record.id as RequestId);
    return method;
  }
}
