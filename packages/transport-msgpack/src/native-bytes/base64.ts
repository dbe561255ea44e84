import { Buffer } from '../runtime/buffer.js';

/**
 * The only base64 in the extension. It runs on the fallback paths (JSON wire, extension not negotiated)
 * and when a default-mode receiver hands bin to the SDK's base64 schemas; never on the negotiated
 * MessagePack path of a sender.
 */

export function bytesToBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * Strict decoding: Buffer skips characters outside the alphabet, so the decoded length is checked
 * against the length the text implies, which catches them.
 */
export function base64ToBytes(text: string): Uint8Array | undefined {
  const bytes = Buffer.from(text, 'base64');
  let padding = 0;
  if (text.endsWith('==')) padding = 2;
  else if (text.endsWith('=')) padding = 1;
  const expected = Math.floor(((text.length - padding) * 3) / 4);
  if (text.length % 4 === 1 || bytes.byteLength !== expected) return undefined;
  return bytes;
}
