import path from 'node:path';

/**
 * True when `candidate` is `directory` itself or lies below it. Both must be absolute and normalised
 * (path.resolve output). The comparison is exact: no case folding, no trimming, and a separator must follow
 * the directory, so `/allowed_evil` is not inside `/allowed` (CVE-2025-53110).
 */
export function isInsideDirectory(candidate: string, directory: string): boolean {
  if (candidate === directory) return true;
  const prefix = directory.endsWith(path.sep) ? directory : directory + path.sep;
  return candidate.startsWith(prefix);
}
