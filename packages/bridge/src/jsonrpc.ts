import type { JSONRPCMessage } from 'mcp-msgpack-transport';

export type RequestId = string | number;

/** JSON-RPC "internal error": what the host gets when the bridge cannot deliver or answer its request. */
export const BRIDGE_ERROR = -32603;

// The kinds of a message the transports have checked: the transport's own guards, read from its shape.
export { isNotification, isRequest, isResponse } from 'mcp-msgpack-transport/wire';

export function errorAnswer(id: RequestId, message: string, code = BRIDGE_ERROR): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code, message } } as JSONRPCMessage;
}
