import type { JSONRPCMessage } from '../mcp/types.js';

/** How a receiver's refusal of a value that is not a JSON-RPC message begins (then why, from checkJsonRpcMessage). */
export const NOT_JSON_RPC = 'not a JSON-RPC 2.0 message';

/**
 * The JSON-RPC message rules of SPEC.md 4.2: what the SDK's `JSONRPCMessageSchema` accepts (a union of four
 * strict schemas), plus `id: null` on error responses as JSON-RPC 2.0 has it, without running zod on every
 * message. test/validate.test.ts holds both to the same verdicts over a shared
 * corpus and random messages. Returns undefined for a valid message, else why it is not one.
 */
export function checkJsonRpcMessage(value: unknown): string | undefined {
  if (!isPlainRecord(value)) return 'a JSON-RPC message must be an object';
  if (value.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if ('method' in value) {
    if (typeof value.method !== 'string') return 'method must be a string';
    const hasId = 'id' in value;
    if (hasId && !isRequestId(value.id)) return 'id must be a string or an integer';
    for (const key in value) {
      if (key !== 'jsonrpc' && key !== 'method' && key !== 'params' && !(hasId && key === 'id')) {
        return `unexpected key "${key}" in a ${hasId ? 'request' : 'notification'}`;
      }
    }
    return checkParams(value.params);
  }
  if ('result' in value) {
    if (!isRequestId(value.id)) return 'a response id must be a string or an integer';
    for (const key in value) {
      if (key !== 'jsonrpc' && key !== 'id' && key !== 'result') return `unexpected key "${key}" in a response`;
    }
    if (!isPlainRecord(value.result)) return 'result must be an object';
    return checkMeta(value.result._meta);
  }
  if ('error' in value) {
    // null: JSON-RPC 2.0's id for an error whose request id could not be read (SPEC.md 4.2).
    if (value.id !== undefined && value.id !== null && !isRequestId(value.id)) return 'an error response id must be a string, an integer or null';
    for (const key in value) {
      if (key !== 'jsonrpc' && key !== 'id' && key !== 'error') return `unexpected key "${key}" in an error response`;
    }
    const error = value.error;
    if (!isPlainRecord(error)) return 'error must be an object';
    if (!isInteger(error.code)) return 'error.code must be an integer';
    if (typeof error.message !== 'string') return 'error.message must be a string';
    return undefined;
  }
  return 'not a request, notification, response or error response';
}

export function isJsonRpcMessage(value: unknown): value is JSONRPCMessage {
  return checkJsonRpcMessage(value) === undefined;
}

function checkParams(params: unknown): string | undefined {
  if (params === undefined) return undefined;
  if (!isPlainRecord(params)) return 'params must be an object';
  return checkMeta(params._meta);
}

const RELATED_TASK_KEY = 'io.modelcontextprotocol/related-task';

function checkMeta(meta: unknown): string | undefined {
  if (meta === undefined) return undefined;
  if (!isPlainRecord(meta)) return '_meta must be an object';
  const token = meta.progressToken;
  if (token !== undefined && !isRequestId(token)) return '_meta.progressToken must be a string or an integer';
  const related = meta[RELATED_TASK_KEY];
  if (related !== undefined && (!isPlainRecord(related) || typeof related.taskId !== 'string')) {
    return `_meta["${RELATED_TASK_KEY}"].taskId must be a string`;
  }
  return undefined;
}

/**
 * An object as the SDK's schemas take one (zod's object accepts bytes too): this check mirrors the SDK's
 * acceptance set, so it is not jsonrpc/is-record.ts's isRecord, which is what the rest of the package reads.
 */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isInteger(value: unknown): value is number {
  return Number.isSafeInteger(value);
}

function isRequestId(value: unknown): value is string | number {
  return typeof value === 'string' || isInteger(value);
}
