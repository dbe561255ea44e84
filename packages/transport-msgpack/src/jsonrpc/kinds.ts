import type { JSONRPCErrorResponse, JSONRPCNotification, JSONRPCRequest, JSONRPCResultResponse } from '../mcp/types.js';
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
  if (!isJSONRPCRequest(value) || value.method !== 'initialize') return false;
  const params = value.params;
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
  const requestId = value.params?.requestId;
  return typeof requestId === 'string' || typeof requestId === 'number';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
