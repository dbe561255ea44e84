import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolRequest, CreateMessageRequest, GetPromptRequest, ReadResourceRequest } from '@modelcontextprotocol/sdk/types.js';
import { markNative } from './native-requests.js';
import {
  NativeCallToolResultSchema,
  NativeCreateMessageResultSchema,
  NativeGetPromptResultSchema,
  NativeReadResourceResultSchema,
  type NativeCallToolResult,
  type NativeCreateMessageResult,
  type NativeGetPromptResult,
  type NativeReadResourceResult,
} from './schemas.js';

/**
 * Requests whose results hand media to the application as Uint8Array (native mode), on any connection:
 * with native bytes negotiated the bytes arrive as bin and are passed on without base64 anywhere; without
 * it (JSON wire, a server that did not confirm) the base64 strings are decoded here.
 *
 * Unlike client.callTool, callToolNative does not check structuredContent against the tool's outputSchema.
 */

export function callToolNative(client: Client, params: CallToolRequest['params'], options?: RequestOptions): Promise<NativeCallToolResult> {
  return client.request(markNative({ method: 'tools/call', params }), NativeCallToolResultSchema, options);
}

export function readResourceNative(client: Client, params: ReadResourceRequest['params'], options?: RequestOptions): Promise<NativeReadResourceResult> {
  return client.request(markNative({ method: 'resources/read', params }), NativeReadResourceResultSchema, options);
}

export function getPromptNative(client: Client, params: GetPromptRequest['params'], options?: RequestOptions): Promise<NativeGetPromptResult> {
  return client.request(markNative({ method: 'prompts/get', params }), NativeGetPromptResultSchema, options);
}

/** Server side: a sampling request whose result (e.g. a generated image) comes back as bytes. Without tools. */
export function createMessageNative(server: Server, params: CreateMessageRequest['params'], options?: RequestOptions): Promise<NativeCreateMessageResult> {
  if (params.tools || params.toolChoice) throw new TypeError('createMessageNative does not support sampling with tools; use server.createMessage');
  return server.request(markNative({ method: 'sampling/createMessage', params }), NativeCreateMessageResultSchema, options);
}
