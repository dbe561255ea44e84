import { Buffer } from '../runtime/buffer.js';

/**
 * Copies chunks held for one message into the start of a buffer of `size` bytes (at least their total),
 * returning the buffer and how many bytes were written. Unzeroed: callers hand the buffer on only once
 * every byte of it has been written.
 */
export function joinPieces(pieces: readonly Uint8Array[], size: number): { buffer: Buffer; written: number } {
  const buffer = Buffer.allocUnsafe(size);
  let written = 0;
  for (const piece of pieces) {
    buffer.set(piece, written);
    written += piece.length;
  }
  return { buffer, written };
}
