const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/** Human-readable size in the official server's format: `512 B`, `1.50 KB`, two decimals above bytes. */
export function formatSize(bytes: number): string {
  if (bytes <= 0) return '0 B';
  const exponent = Math.min(Math.floor(Math.log(bytes) / Math.log(1024)), UNITS.length - 1);
  if (exponent <= 0) return `${bytes} B`;
  return `${(bytes / 1024 ** exponent).toFixed(2)} ${UNITS[exponent]}`;
}
