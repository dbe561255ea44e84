import { placeholders } from './registry.js';

/** MCP's content shapes with base64 `data` / `blob`, as handlers return them (each SDK's types accept these). */
export interface ContentAnnotations {
  audience?: ('user' | 'assistant')[];
  priority?: number;
  lastModified?: string;
}

export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
  annotations?: ContentAnnotations;
  _meta?: Record<string, unknown>;
}

export interface AudioContent {
  type: 'audio';
  data: string;
  mimeType: string;
  annotations?: ContentAnnotations;
  _meta?: Record<string, unknown>;
}

export interface BlobResourceContents {
  uri: string;
  blob: string;
  mimeType?: string;
  _meta?: Record<string, unknown>;
}

export interface EmbeddedResource {
  type: 'resource';
  resource: BlobResourceContents;
  annotations?: ContentAnnotations;
  _meta?: Record<string, unknown>;
}

/**
 * Media for handlers registered on an unmodified McpServer (or Client handlers answering sampling).
 *
 * Each helper returns the SDK's own content shape with a short base64 placeholder where the media goes,
 * so the SDK's result validation passes without ever seeing (or atob-ing) the media. The transport's
 * native-bytes adapter swaps the bytes in when it encodes the message: as MessagePack bin when the
 * extension is negotiated, otherwise as base64 computed once. The transport must have `nativeBytes`
 * enabled; the bytes are not copied, so do not change them until the result is sent.
 */

type Extra<T> = Omit<T, 'type' | 'data' | 'mimeType' | 'resource'>;

/** A placeholder for `bytes`, for any base64 field the helpers below do not cover. */
export function nativeBytes(bytes: Uint8Array): string {
  return placeholders.register(bytes);
}

export function nativeImage(bytes: Uint8Array, mimeType: string, extra: Extra<ImageContent> = {}): ImageContent {
  return { ...extra, type: 'image', data: placeholders.register(bytes), mimeType };
}

export function nativeAudio(bytes: Uint8Array, mimeType: string, extra: Extra<AudioContent> = {}): AudioContent {
  return { ...extra, type: 'audio', data: placeholders.register(bytes), mimeType };
}

/** One entry of a resources/read result's `contents`. */
export function nativeBlobContents(uri: string, bytes: Uint8Array, mimeType?: string): BlobResourceContents {
  const contents: BlobResourceContents = { uri, blob: placeholders.register(bytes) };
  if (mimeType !== undefined) contents.mimeType = mimeType;
  return contents;
}

/** An embedded resource content block (tool results, prompt messages). */
export function nativeBlobResource(uri: string, bytes: Uint8Array, mimeType?: string, extra: Extra<EmbeddedResource> = {}): EmbeddedResource {
  return { ...extra, type: 'resource', resource: nativeBlobContents(uri, bytes, mimeType) };
}
