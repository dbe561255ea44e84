const REASONS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'illegal operation on a directory',
  ENOTDIR: 'not a directory',
  EEXIST: 'file already exists',
  ENOTEMPTY: 'directory not empty',
  ENAMETOOLONG: 'name too long',
  ELOOP: 'too many levels of symbolic links',
  EXDEV: 'cross-device link not permitted',
  ENOSPC: 'no space left on device',
  EROFS: 'read-only file system',
  EBUSY: 'resource busy or locked',
};

export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Rewrites a file-system error so its message names the path the client asked for (operations run on
 * /proc/self/fd/N/... paths, which mean nothing to the client) in the familiar `CODE: reason, op 'path'` form.
 * Errors without an errno code pass through unchanged.
 */
export function describeFsError(error: unknown, operation: string, displayPath: string): Error {
  const code = errorCode(error);
  if (!code || !(error instanceof Error)) return error instanceof Error ? error : new Error(String(error));
  // Node's own message is `CODE: reason, syscall 'path'`; keep only the reason when we have no wording.
  const reason = REASONS[code] ?? error.message.replace(/^[A-Z0-9_]+: /, '').replace(/, \w+( '.*)?$/s, '');
  const described = new Error(`${code}: ${reason}, ${operation} '${displayPath}'`);
  (described as NodeJS.ErrnoException).code = code;
  return described;
}

/** Runs a file-system call and describes its failure in terms of the client's path. */
export async function fsCall<T>(operation: string, displayPath: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw describeFsError(error, operation, displayPath);
  }
}
