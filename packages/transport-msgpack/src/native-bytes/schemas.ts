import { z } from 'zod/v4';
import { base64ToBytes } from './base64.js';
import { placeholders } from './registry.js';

/**
 * Bytes-aware versions of the SDK's result schemas: a Uint8Array where the SDK has a base64 string.
 * A base64 string is accepted too and decoded (the peer did not negotiate native bytes, or the wire is
 * JSON), so code using these schemas always gets bytes.
 */
export const NativeBytesSchema = z.union([
  z.instanceof(Uint8Array),
  z.string().transform((text, ctx) => {
    // Bytes the client transport handed over as a placeholder (a 2026-07-28 result through SDK v2's Client).
    if (placeholders.isPlaceholder(text)) {
      const held = placeholders.take(text);
      if (held === undefined) ctx.addIssue({ code: 'custom', message: 'native bytes placeholder no longer held (taken twice, or expired)' });
      return held ?? z.NEVER;
    }
    const bytes = base64ToBytes(text);
    if (bytes === undefined) {
      ctx.addIssue({ code: 'custom', message: 'Invalid base64 string' });
      return z.NEVER;
    }
    return bytes;
  }),
]);

/*
 * The MCP content and result shapes (2025-11-25) the native helpers validate, declared here so the package
 * needs no SDK at runtime. They accept what the SDKs' schemas accept, with bytes in the base64 fields.
 */
const MetaSchema = z.record(z.string(), z.unknown());
const RoleSchema = z.enum(['user', 'assistant']);
const AnnotationsSchema = z.object({
  audience: z.array(RoleSchema).optional(),
  priority: z.number().min(0).max(1).optional(),
  lastModified: z.iso.datetime({ offset: true }).optional(),
});
/** Every result may carry `_meta` and any other key (as the SDKs' ResultSchema). */
const ResultSchema = z.looseObject({ _meta: MetaSchema.optional() });
const IconSchema = z.object({
  src: z.string(),
  mimeType: z.string().optional(),
  sizes: z.array(z.string()).optional(),
  theme: z.enum(['light', 'dark']).optional(),
});

const TextContentSchema = z.object({ type: z.literal('text'), text: z.string(), annotations: AnnotationsSchema.optional(), _meta: MetaSchema.optional() });
const ResourceContentsSchema = z.object({ uri: z.string(), mimeType: z.string().optional(), _meta: MetaSchema.optional() });
const TextResourceContentsSchema = ResourceContentsSchema.extend({ text: z.string() });
const ResourceLinkSchema = z.object({
  type: z.literal('resource_link'),
  uri: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  size: z.number().optional(),
  icons: z.array(IconSchema).optional(),
  annotations: AnnotationsSchema.optional(),
  _meta: MetaSchema.optional(),
});
const MediaFields = { mimeType: z.string(), annotations: AnnotationsSchema.optional(), _meta: MetaSchema.optional() };

export const NativeImageContentSchema = z.object({ type: z.literal('image'), data: NativeBytesSchema, ...MediaFields });
export const NativeAudioContentSchema = z.object({ type: z.literal('audio'), data: NativeBytesSchema, ...MediaFields });
export const NativeBlobResourceContentsSchema = ResourceContentsSchema.extend({ blob: NativeBytesSchema });
export const NativeResourceContentsSchema = z.union([TextResourceContentsSchema, NativeBlobResourceContentsSchema]);
export const NativeEmbeddedResourceSchema = z.object({
  type: z.literal('resource'),
  resource: NativeResourceContentsSchema,
  annotations: AnnotationsSchema.optional(),
  _meta: MetaSchema.optional(),
});
export const NativeContentBlockSchema = z.union([TextContentSchema, NativeImageContentSchema, NativeAudioContentSchema, ResourceLinkSchema, NativeEmbeddedResourceSchema]);

export const NativeCallToolResultSchema = ResultSchema.extend({
  content: z.array(NativeContentBlockSchema).default([]),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
});
export const NativeReadResourceResultSchema = ResultSchema.extend({ contents: z.array(NativeResourceContentsSchema) });
export const NativeGetPromptResultSchema = ResultSchema.extend({
  description: z.string().optional(),
  messages: z.array(z.object({ role: RoleSchema, content: NativeContentBlockSchema })),
});
export const NativeCreateMessageResultSchema = ResultSchema.extend({
  model: z.string(),
  stopReason: z.string().optional(),
  role: RoleSchema,
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
