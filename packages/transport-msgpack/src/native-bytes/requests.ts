import type { z } from 'zod/v4';
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
 * What the helpers need of an SDK Client (or, for createMessageNative, a Server): its `request(request,
 * resultSchema, options)`, which v1's and v2's both have. Structural, so either generation's fits.
 */
export interface NativeRequestSender {
  request(request: { method: string; params?: Record<string, unknown> }, resultSchema: z.ZodType, options?: NativeRequestOptions): Promise<unknown>;
}

/** The per-request options both SDKs take (a subset of their RequestOptions). */
export interface NativeRequestOptions {
  signal?: AbortSignal;
  timeout?: number;
  resetTimeoutOnProgress?: boolean;
  maxTotalTimeout?: number;
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

type Params = { _meta?: Record<string, unknown>; [key: string]: unknown };
export type CallToolParams = Params & { name: string; arguments?: Record<string, unknown> };
export type ReadResourceParams = Params & { uri: string };
export type GetPromptParams = Params & { name: string; arguments?: Record<string, string> };
export type CreateMessageParams = Params & { messages: unknown[]; maxTokens: number; tools?: unknown; toolChoice?: unknown };

/**
 * Requests whose results hand media to the application as Uint8Array (native mode), on any connection:
 * with native bytes negotiated the bytes arrive as bin and are passed on without base64 anywhere; without
 * it (JSON wire, a server that did not confirm) the base64 strings are decoded here.
 *
 * Unlike client.callTool, callToolNative does not check structuredContent against the tool's outputSchema.
 */

export function callToolNative(client: NativeRequestSender, params: CallToolParams, options?: NativeRequestOptions): Promise<NativeCallToolResult> {
  return client.request(markNative({ method: 'tools/call', params }), NativeCallToolResultSchema, options) as Promise<NativeCallToolResult>;
}

export function readResourceNative(client: NativeRequestSender, params: ReadResourceParams, options?: NativeRequestOptions): Promise<NativeReadResourceResult> {
  return client.request(markNative({ method: 'resources/read', params }), NativeReadResourceResultSchema, options) as Promise<NativeReadResourceResult>;
}

export function getPromptNative(client: NativeRequestSender, params: GetPromptParams, options?: NativeRequestOptions): Promise<NativeGetPromptResult> {
  return client.request(markNative({ method: 'prompts/get', params }), NativeGetPromptResultSchema, options) as Promise<NativeGetPromptResult>;
}

/** Server side: a sampling request whose result (e.g. a generated image) comes back as bytes. Without tools. */
export function createMessageNative(server: NativeRequestSender, params: CreateMessageParams, options?: NativeRequestOptions): Promise<NativeCreateMessageResult> {
  if (params.tools || params.toolChoice) throw new TypeError('createMessageNative does not support sampling with tools; use server.createMessage');
  return server.request(markNative({ method: 'sampling/createMessage', params }), NativeCreateMessageResultSchema, options) as Promise<NativeCreateMessageResult>;
}
