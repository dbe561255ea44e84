/** Thrown when a request names a path the server must not touch. The message is what the client sees. */
export class AccessDeniedError extends Error {
  override readonly name = 'AccessDeniedError';
}

/** Thrown when a path changed under us between checks (a swap race); the operation is abandoned, not retried. */
export class PathChangedError extends AccessDeniedError {}
