import type { JSONRPCErrorResponse, JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, JSONRPCResultResponse } from '../mcp/types.js';
import { isRecord } from './is-record.js';
import { checkJsonRpcMessage } from './validate.js';

/**
 * Which kind of JSON-RPC message a value is, with the verdicts of the SDKs' guards of the same names (each
 * first checks the value is a valid message at all, as the SDKs' schemas do; the kinds exclude each other).
 */

export function isJSONRPCRequest(value: unknown): value is JSONRPCRequest {
  return checkJsonRpcMessage(value) === undefined && 'method' in (value as object) && 'id' in (value as object);
}

export function isJSONRPCNotification(value: unknown): value is JSONRPCNotification {
  return checkJsonRpcMessage(value) === undefined && 'method' in (value as object) && !('id' in (value as object));
}

export function isJSONRPCResultResponse(value: unknown): value is JSONRPCResultResponse {
  return checkJsonRpcMessage(value) === undefined && 'result' in (value as object);
}

export function isJSONRPCErrorResponse(value: unknown): value is JSONRPCErrorResponse {
  return checkJsonRpcMessage(value) === undefined && 'error' in (value as object);
}

export interface InitializeRequest extends JSONRPCRequest {
  method: 'initialize';
  params: { protocolVersion: string; capabilities: Record<string, unknown>; clientInfo: { name: string; version: string }; [key: string]: unknown };
}

/**
 * An initialize request whose params have what MCP requires (protocolVersion, capabilities, clientInfo).
 * Unlike the SDKs' guard (which checks only method and params), it must be a valid JSON-RPC request.
 */
export function isInitializeRequest(value: unknown): value is InitializeRequest {
  return isJSONRPCRequest(value) && value.method === 'initialize' && hasInitializeParams(value.params);
}

function hasInitializeParams(params: JSONRPCRequest['params']): boolean {
  if (!params || typeof params.protocolVersion !== 'string' || !isRecord(params.capabilities)) return false;
  const info = params.clientInfo;
  return isRecord(info) && typeof info.name === 'string' && typeof info.version === 'string';
}

/** Likewise a valid JSON-RPC notification, not just anything with that method. */
export function isInitializedNotification(value: unknown): value is JSONRPCNotification {
  return isJSONRPCNotification(value) && value.method === 'notifications/initialized';
}

export interface CancelledNotification extends JSONRPCNotification {
  method: 'notifications/cancelled';
  params: { requestId: string | number; reason?: string; [key: string]: unknown };
}

/** A valid `notifications/cancelled` naming the request it cancels (a string or number id). */
export function isCancelledNotification(value: unknown): value is CancelledNotification {
  // The method first: most messages are something else, and the full check is not free.
  if (!isRecord(value) || value.method !== 'notifications/cancelled' || !isJSONRPCNotification(value)) return false;
  return isRequestIdValue(value.params?.requestId);
}

function isRequestIdValue(value: unknown): value is string | number {
  return typeof value === 'string' || typeof value === 'number';
}

/*
 * The kind of a message already checked: one a receiver let in (codec/validate.ts) or one the connected
 * server sends. Read from its shape, with no second check: the guards above re-run the whole check on
 * every call, for values of unknown origin.
 */

export function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message;
}

export function isNotification(message: JSONRPCMessage): message is JSONRPCNotification {
  return 'method' in message && !('id' in message);
}

/** A result or an error response: what answers a request. */
export function isResponse(message: JSONRPCMessage): message is JSONRPCResultResponse | JSONRPCErrorResponse {
  return !('method' in message);
}

export function isErrorResponse(message: JSONRPCMessage): message is JSONRPCErrorResponse {
  return 'error' in message && !('method' in message);
}

/** A checked message that is an initialize request with what MCP requires (as isInitializeRequest). */
export function isInitialize(message: JSONRPCMessage): message is InitializeRequest {
  return isRequest(message) && message.method === 'initialize' && hasInitializeParams(message.params);
}

/** A checked message that is `notifications/initialized`. */
export function isInitialized(message: JSONRPCMessage): boolean {
  return isNotification(message) && message.method === 'notifications/initialized';
}

/** A checked message that is a `notifications/cancelled` naming the request it cancels. */
export function isCancellation(message: JSONRPCMessage): message is CancelledNotification {
  return isNotification(message) && message.method === 'notifications/cancelled' && isRequestIdValue(message.params?.requestId);
}
