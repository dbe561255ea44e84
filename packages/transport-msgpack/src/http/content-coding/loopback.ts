/**
 * Whether a local address is a loopback one (127.0.0.0/8, ::1, IPv4-mapped 127.x, `localhost`): a request
 * that arrived there came from this machine, where bytes cost nothing and CPU is what counts.
 */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const plain = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const lower = plain.toLowerCase();
  return lower === 'localhost' || lower === '::1' || lower.startsWith('127.') || lower.startsWith('::ffff:127.');
}
