import { base64ToBytes } from './base64.js';

/**
 * For relays: a JSON peer's base64 media passed on to a peer that negotiated native bytes (mcp-msgpack-bridge's
 * reverse mode in front of a stdio JSON server). The text must be decoded somewhere, since the peer it came
 * from speaks JSON; decoding it once here, as the message is encoded, lets it leave as bin instead of being
 * carried as text to a receiver that would decode it again.
 */
export interface RelayedBase64Options {
  /**
   * Called with a media field's text that is not strict base64 (characters outside the alphabet, line breaks,
   * a wrong length). That text is sent unchanged, as the JSON peer wrote it.
   */
  onMalformed?: (text: string) => void;
}

/** The bytes of a relayed media field's base64 text, or undefined (reported) when it is not strict base64. */
export function relayedBytes(text: string, options: RelayedBase64Options): Uint8Array | undefined {
  const bytes = base64ToBytes(text);
  if (bytes === undefined) options.onMalformed?.(text);
  return bytes;
}
