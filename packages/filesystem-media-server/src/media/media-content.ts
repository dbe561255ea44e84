import type { McpServer } from '@modelcontextprotocol/server';
import type { BlobResourceContents, ContentBlock } from '@modelcontextprotocol/server';
import { nativeAudio, nativeBlobContents, nativeBlobResource, nativeImage } from 'mcp-msgpack-transport';
import { DEFAULT_MAX_MESSAGE_BYTES } from 'mcp-msgpack-transport/wire';
import { base64Length, formatMiB, MESSAGE_HEADROOM_BYTES } from './limits.js';
import { mediaKindOf } from './mime.js';
import { type MediaPayload, releaseMedia } from './read-media.js';

/**
 * How media leaves this server. `native`: through mcp-msgpack-transport's native-bytes helpers (the
 * transport's adapter sends bin when the client negotiated it, else base64 encoded once, at send time).
 * Otherwise the handler encodes base64 itself (for transports without that adapter, e.g. the SDK's own).
 */
export interface MediaDelivery {
  readonly native: boolean;
  /** Whether the current client negotiated native bytes, when the transport can tell (undefined: unknown). */
  negotiated(): boolean | undefined;
}

/**
 * Media that will travel as base64 must fit the message cap once encoded; refuse it here, with a reason,
 * rather than produce a message the client's transport would have to drop.
 */
function checkBase64Budget(payload: MediaPayload, delivery: MediaDelivery): void {
  const willBeBase64 = !delivery.native || delivery.negotiated() === false;
  const encodedBytes = base64Length(payload.bytes.byteLength);
  if (willBeBase64 && encodedBytes > DEFAULT_MAX_MESSAGE_BYTES - MESSAGE_HEADROOM_BYTES) {
    throw new Error(
      `${payload.display} is ${formatMiB(payload.bytes.byteLength)}: as base64 it would be ${formatMiB(encodedBytes)}, ` +
        `over the ${formatMiB(DEFAULT_MAX_MESSAGE_BYTES)} message limit. A MessagePack client with native bytes can read it.`,
    );
  }
}

/** Base64 for transports without the native-bytes adapter; the pooled bytes go back at once. */
function toBase64(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  releaseMedia(bytes);
  return text;
}

/** The content block for a media file: image, audio, or an embedded blob resource. */
export function mediaContentBlock(payload: MediaPayload, delivery: MediaDelivery): ContentBlock {
  checkBase64Budget(payload, delivery);
  const { bytes, mimeType, uri } = payload;
  const kind = mediaKindOf(mimeType);
  if (delivery.native) {
    if (kind === 'image') return nativeImage(bytes, mimeType);
    if (kind === 'audio') return nativeAudio(bytes, mimeType);
    return nativeBlobResource(uri, bytes, mimeType);
  }
  if (kind === 'resource') return { type: 'resource', resource: { uri, mimeType, blob: toBase64(bytes) } };
  return { type: kind, data: toBase64(bytes), mimeType };
}

/** resources/read contents for a binary file. */
export function blobResourceContents(payload: MediaPayload, delivery: MediaDelivery): BlobResourceContents {
  checkBase64Budget(payload, delivery);
  if (delivery.native) return nativeBlobContents(payload.uri, payload.bytes, payload.mimeType);
  return { uri: payload.uri, mimeType: payload.mimeType, blob: toBase64(payload.bytes) };
}

/**
 * Reads the negotiation state off the transport on the wire (`wireTransport`, else the server's own) where it
 * is public: the HTTP transport's per-session adapter; on stdio, a JSON client is known to get base64.
 * Otherwise unknown.
 */
export function deliveryFor(server: McpServer, native: boolean, wireTransport?: object): MediaDelivery {
  return {
    native,
    negotiated: () => {
      const transport = (wireTransport ?? server.server.transport) as { adapter?: { negotiated?: unknown }; wire?: unknown } | undefined;
      if (typeof transport?.adapter?.negotiated === 'boolean') return transport.adapter.negotiated;
      if (transport?.wire === 'json') return false;
      return undefined;
    },
  };
}
