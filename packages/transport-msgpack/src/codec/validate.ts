import type { JSONRPCMessage } from '../mcp/types.js';
import { NOT_JSON_RPC, checkJsonRpcMessage } from '../jsonrpc/validate.js';
import { PayloadError, type MessageClues } from '../wire/errors.js';

/** Checks a decoded value as JSON-RPC; on failure the error carries what can be read of it. */
export function validated(value: unknown): JSONRPCMessage {
  const problem = checkJsonRpcMessage(value);
  if (problem !== undefined) throw new PayloadError('not-json-rpc', `${NOT_JSON_RPC}: ${problem}`, cluesOf(value));
  return value as JSONRPCMessage;
}

export function cluesOf(value: unknown): MessageClues {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { hasMethod: false, hasResultOrError: false };
  const record = value as Record<string, unknown>;
  const id = record.id;
  return {
    id: typeof id === 'string' || Number.isSafeInteger(id) ? (id as string | number) : undefined,
    hasMethod: 'method' in record,
    hasResultOrError: 'result' in record || 'error' in record,
  };
}
