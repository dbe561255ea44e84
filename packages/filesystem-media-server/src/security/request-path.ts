import path from 'node:path';
import type { AllowedDirectories } from './allowed-directories.js';
import { expandHome } from './allowed-directories.js';
import { AccessDeniedError } from './errors.js';

const WINDOWS_DRIVE = /^[A-Za-z]:/;

/**
 * Turns the path string a client sent into an absolute, normalised path inside an allowed directory, or
 * throws. Purely lexical: nothing is opened here; every later open is verified again (see guarded-fs).
 *
 * The string is taken literally: quotes and whitespace are part of the name (stripping them once turned a
 * forbidden path into an allowed one, GHSA-7rgq-gccq-qphx), percent escapes are not decoded, case is not
 * folded. On POSIX, backslashes and drive letters are refused rather than read as odd file names, since a
 * client that sends them meant a Windows path.
 */
export function resolveRequestPath(requested: string, allowed: AllowedDirectories): string {
  if (typeof requested !== 'string' || requested.length === 0) {
    throw new AccessDeniedError('Access denied - empty path');
  }
  if (requested.includes('\0')) {
    throw new AccessDeniedError('Access denied - path contains a null byte');
  }
  if (path.sep === '/' && (WINDOWS_DRIVE.test(requested) || requested.includes('\\'))) {
    throw new AccessDeniedError(`Access denied - Windows-style path received on a POSIX host: ${requested}`);
  }
  if (allowed.size === 0) {
    throw new AccessDeniedError('Access denied - no allowed directories are configured (pass directories or provide MCP roots)');
  }
  const expanded = expandHome(requested);
  let absolute: string;
  if (path.isAbsolute(expanded)) {
    absolute = path.resolve(expanded);
  } else {
    // A relative path is tried against each allowed directory in turn, as the official server does.
    const bases = allowed.bases();
    absolute = bases.map((base) => path.resolve(base, expanded)).find((p) => allowed.containsLexically(p)) ?? path.resolve(bases[0]!, expanded);
  }
  if (!allowed.containsLexically(absolute)) {
    throw new AccessDeniedError(`Access denied - path outside allowed directories: ${absolute} not in ${allowed.displayList().join(', ')}`);
  }
  return absolute;
}
