import { BIN_BY_REFERENCE } from '../../wire/encode-pieces.js';

/**
 * Whether a MessagePack body in pieces is mostly native bytes (images, audio: compressed already), so
 * coding it would spend CPU for nothing. Free to tell: the encoder cuts every bin of BIN_BY_REFERENCE bytes
 * or more out as a piece of its own, between the arena segments around it (wire/encode-pieces.ts), so the
 * odd-numbered pieces are those bins. Mostly: more than half the body's bytes.
 */
export function mostlyNativeBytes(pieces: readonly Uint8Array[], totalBytes: number): boolean {
  if (pieces.length < 2) return false;
  let binBytes = 0;
  for (let i = 1; i < pieces.length; i += 2) if (pieces[i]!.byteLength >= BIN_BY_REFERENCE) binBytes += pieces[i]!.byteLength;
  return binBytes * 2 > totalBytes;
}

/** Whether a coded body saved enough to be worth the client's decoding: at least an eighth of the bytes. */
export function shrankEnough(codedBytes: number, plainBytes: number): boolean {
  return codedBytes <= plainBytes - plainBytes / 8;
}
