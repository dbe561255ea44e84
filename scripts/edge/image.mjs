/** The image tool's bytes: a PNG signature, then a pattern, 100 KiB (past the 32 KiB large-bin path). */
export function imageBytes() {
  const bytes = new Uint8Array(100 * 1024);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  for (let i = 8; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
  return bytes;
}

/** Whether two byte arrays are equal (no Buffer: this runs in browsers and Workers too). */
export function sameBytes(a, b) {
  if (!(a instanceof Uint8Array) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** base64 to bytes with the web's atob. */
export function fromBase64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
