import type { BlobResourceContents, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { base64Length, formatMiB, MESSAGE_HEADROOM_BYTES } from './limits.js';
import { DEFAULT_MAX_FRAME_BYTES } from 'mcp-msgpack-transport';
import { mediaKindOf } from './mime.js';

export interface MediaPayload {
  readonly bytes: Uint8Array;
  readonly mimeType: string;
  readonly uri: string;
  readonly display: string;
}

/**
 * The one place that decides how media bytes travel. Today: base64, encoded once here. With the
 * native-bytes extension negotiated, this is where the bytes are handed over as they are instead.
 */
function encodeForWire(payload: MediaPayload): string {
  const encodedBytes = base64Length(payload.bytes.byteLength);
  if (encodedBytes > DEFAULT_MAX_FRAME_BYTES - MESSAGE_HEADROOM_BYTES) {
    throw new Error(
      `${payload.display} is ${formatMiB(payload.bytes.byteLength)}: as base64 it would be ${formatMiB(encodedBytes)}, ` +
        `over the ${formatMiB(DEFAULT_MAX_FRAME_BYTES)} message limit. A MessagePack client with native bytes can read it.`,
    );
  }
  return Buffer.from(payload.bytes.buffer, payload.bytes.byteOffset, payload.bytes.byteLength).toString('base64');
}

/** The content block for a media file: image, audio, or an embedded blob resource. */
export function mediaContentBlock(payload: MediaPayload): ContentBlock {
  const data = encodeForWire(payload);
  const kind = mediaKindOf(payload.mimeType);
  if (kind === 'resource') return { type: 'resource', resource: { uri: payload.uri, mimeType: payload.mimeType, blob: data } };
  return { type: kind, data, mimeType: payload.mimeType };
}

/** resources/read contents for a binary file. */
export function blobResourceContents(payload: MediaPayload): BlobResourceContents {
  return { uri: payload.uri, mimeType: payload.mimeType, blob: encodeForWire(payload) };
}
