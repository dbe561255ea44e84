import type { FetchLike } from '../../mcp/types.js';

/**
 * A fetch whose network failures say what failed and where: undici's `TypeError: fetch failed` hides the
 * reason (ECONNREFUSED, ENOTFOUND, a reset) in `cause`, which most callers print without. The error stays a
 * TypeError with the same cause; aborts and HTTP answers pass unchanged.
 */
export function fetchNamingFailures(fetch: FetchLike): FetchLike {
  return async (url, init) => {
    try {
      return await fetch(url, init);
    } catch (error) {
      throw namedFailure(error, url, init?.method ?? 'GET');
    }
  };
}

function namedFailure(error: unknown, url: string | URL, method: string): unknown {
  if (!(error instanceof TypeError)) return error;
  const target = `${method} ${String(url)}`;
  if (error.message.includes(target)) return error;
  const reason = causeText((error as { cause?: unknown }).cause);
  if (reason === undefined || error.message.includes(reason)) {
    // Bun's message names the code already ("ECONNREFUSED: Unable to connect..."), not the URL.
    return new TypeError(`${error.message} (${target})`, { cause: (error as { cause?: unknown }).cause ?? error });
  }
  return new TypeError(`${error.message}: ${reason} (${target})`, { cause: (error as { cause?: unknown }).cause });
}

/** The cause's code and message ("connect ECONNREFUSED 127.0.0.1:4"), also for the AggregateError of a name with several addresses. */
function causeText(cause: unknown): string | undefined {
  if (!(cause instanceof Error)) return undefined;
  const code = (cause as { code?: unknown }).code;
  const inner = (cause as { errors?: unknown }).errors;
  const message = cause.message || (Array.isArray(inner) ? inner.map((e) => (e instanceof Error ? e.message : String(e))).join('; ') : '');
  if (!message) return typeof code === 'string' ? code : undefined;
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}
