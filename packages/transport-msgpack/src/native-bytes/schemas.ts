import {
  AudioContentSchema,
  BlobResourceContentsSchema,
  CallToolResultSchema,
  CreateMessageResultSchema,
  EmbeddedResourceSchema,
  GetPromptResultSchema,
  ImageContentSchema,
  PromptMessageSchema,
  ReadResourceResultSchema,
  ResourceLinkSchema,
  TextContentSchema,
  TextResourceContentsSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod/v4';
import { base64ToBytes } from './base64.js';

/**
 * Bytes-aware versions of the SDK's result schemas: a Uint8Array where the SDK has a base64 string.
 * A base64 string is accepted too and decoded (the peer did not negotiate native bytes, or the wire is
 * JSON), so code using these schemas always gets bytes.
 */
export const NativeBytesSchema = z.union([
  z.instanceof(Uint8Array),
  z.string().transform((text, ctx) => {
    const bytes = base64ToBytes(text);
    if (bytes === undefined) {
      ctx.addIssue({ code: 'custom', message: 'Invalid base64 string' });
      return z.NEVER;
    }
    return bytes;
  }),
]);

export const NativeImageContentSchema = ImageContentSchema.extend({ data: NativeBytesSchema });
export const NativeAudioContentSchema = AudioContentSchema.extend({ data: NativeBytesSchema });
export const NativeBlobResourceContentsSchema = BlobResourceContentsSchema.extend({ blob: NativeBytesSchema });
export const NativeResourceContentsSchema = z.union([TextResourceContentsSchema, NativeBlobResourceContentsSchema]);
export const NativeEmbeddedResourceSchema = EmbeddedResourceSchema.extend({ resource: NativeResourceContentsSchema });
export const NativeContentBlockSchema = z.union([
  TextContentSchema,
  NativeImageContentSchema,
  NativeAudioContentSchema,
  ResourceLinkSchema,
  NativeEmbeddedResourceSchema,
]);

export const NativeCallToolResultSchema = CallToolResultSchema.extend({ content: z.array(NativeContentBlockSchema).default([]) });
export const NativeReadResourceResultSchema = ReadResourceResultSchema.extend({ contents: z.array(NativeResourceContentsSchema) });
export const NativeGetPromptResultSchema = GetPromptResultSchema.extend({
  messages: z.array(PromptMessageSchema.extend({ content: NativeContentBlockSchema })),
});
export const NativeCreateMessageResultSchema = CreateMessageResultSchema.extend({
  content: z.discriminatedUnion('type', [TextContentSchema, NativeImageContentSchema, NativeAudioContentSchema]),
});

export type NativeImageContent = z.output<typeof NativeImageContentSchema>;
export type NativeAudioContent = z.output<typeof NativeAudioContentSchema>;
export type NativeBlobResourceContents = z.output<typeof NativeBlobResourceContentsSchema>;
export type NativeEmbeddedResource = z.output<typeof NativeEmbeddedResourceSchema>;
export type NativeContentBlock = z.output<typeof NativeContentBlockSchema>;
export type NativeCallToolResult = z.output<typeof NativeCallToolResultSchema>;
export type NativeReadResourceResult = z.output<typeof NativeReadResourceResultSchema>;
export type NativeGetPromptResult = z.output<typeof NativeGetPromptResultSchema>;
export type NativeCreateMessageResult = z.output<typeof NativeCreateMessageResultSchema>;
