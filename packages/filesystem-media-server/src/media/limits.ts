import { DEFAULT_MAX_MESSAGE_BYTES } from 'mcp-msgpack-transport/wire';

const MiB = 1024 * 1024;

/** Room left in a message for everything that is not the media itself (envelope, text, metadata). */
export const MESSAGE_HEADROOM_BYTES = 1 * MiB;

/** Default largest file read_media_file and resources/read send: the 64 MiB message cap minus headroom. */
export const DEFAULT_MAX_MEDIA_BYTES = DEFAULT_MAX_MESSAGE_BYTES - MESSAGE_HEADROOM_BYTES;

export function base64Length(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

export function formatMiB(bytes: number): string {
  return `${(bytes / MiB).toFixed(2)} MiB`;
}
