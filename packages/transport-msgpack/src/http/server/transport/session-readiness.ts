import { isInitializedNotification, isJSONRPCRequest } from '../../../jsonrpc/kinds.js';
import type { JSONRPCMessage } from '../../../mcp/types.js';
import type { Refusal } from '../exchange/responses.js';

/**
 * A request on a session whose client has not sent `notifications/initialized` yet (SPEC.md 9.4): the SDK
 * transport's own refusal of a session that is not initialized, with the request's id and a reason. MCP
 * starts "normal operation" only after that notification, so a client that skips it (one opening sessions
 * and calling tools on them at once) is refused before any handler runs; `ping` is allowed at any time.
 */
export function notReadyRefusal(messages: readonly JSONRPCMessage[], clientInitialized: boolean): Refusal | undefined {
  let ready = clientInitialized;
  // In message order: a batch may carry the notification first and its requests after it.
  for (const message of messages) {
    if (ready) return undefined;
    if (isInitializedNotification(message)) ready = true;
    else if (isJSONRPCRequest(message) && message.method !== 'ping') {
      return {
        status: 400,
        code: -32000,
        message: 'Bad Request: Server not initialized: send notifications/initialized before other requests',
        data: { reason: 'not-initialized' },
        id: message.id,
      };
    }
  }
  return undefined;
}
