import type { JSONRPCMessage } from 'mcp-msgpack-transport';

export type RequestId = string | number;
type Record_ = Record<string, unknown>;

/** JSON-RPC "internal error": what the host gets when the bridge cannot deliver or answer its request. */
export const BRIDGE_ERROR = -32603;

export function isRequest(message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId; method: string; params?: Record_ } {
  return 'method' in message && 'id' in message && message.id !== undefined;
}

export function isNotification(message: JSONRPCMessage): message is JSONRPCMessage & { method: string; params?: Record_ } {
  return 'method' in message && !('id' in message && message.id !== undefined);
}

export function isResponse(message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId } {
  return !('method' in message) && ('result' in message || 'error' in message);
}

export function errorAnswer(id: RequestId, message: string, code = BRIDGE_ERROR): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code, message } } as JSONRPCMessage;
}
