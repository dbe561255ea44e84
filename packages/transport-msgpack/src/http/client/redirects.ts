import type { FetchLike } from '../../mcp/types.js';

/**
 * fetch wrappers for the HTTP client's redirect policy, with the SDKs' rules: 'same-origin' follows a
 * redirect only when it keeps the method (GET, or 307/308) and stays within the request's origin (or moves
 * http to https on the same host and default ports), at most 5 times, so a session id or token never
 * leaves the origin; anything else comes back as the redirect response itself, which unfollowedRedirect()
 * turns into an error message.
 */

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Headers of any RequestInit form as a plain object. */
export function normalizeHeaders(headers: HeadersInit | undefined): Record<string, string> {
  if (!headers) return {};
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  if (Array.isArray(headers)) return Object.fromEntries(headers);
  return { ...(headers as Record<string, string>) };
}

/** fetch with `baseInit` under each call's init; headers are merged (the call's win), not replaced. */
export function createFetchWithInit(baseFetch: FetchLike, baseInit: RequestInit | undefined): FetchLike {
  if (!baseInit) return baseFetch;
  return (url, init) => {
    const headers = init?.headers ? { ...normalizeHeaders(baseInit.headers), ...normalizeHeaders(init.headers) } : baseInit.headers;
    return baseFetch(url, { ...baseInit, ...init, headers });
  };
}

const leavesRedirects = new WeakSet<FetchLike>();

/** Marks a fetch whose redirects are its own business: fetchWithinOrigin() then leaves it as it is. */
export function fetchLeavingRedirects(baseFetch: FetchLike): FetchLike {
  const marked: FetchLike = (url, init) => baseFetch(url, init);
  leavesRedirects.add(marked);
  return marked;
}

/** fetch that follows only same-origin, method-keeping redirects (see above). */
export function fetchWithinOrigin(baseFetch: FetchLike): FetchLike {
  if (leavesRedirects.has(baseFetch)) return baseFetch;
  return async (url, init) => {
    // A caller that chose how redirects go keeps its choice.
    if (init?.redirect === 'error' || init?.redirect === 'manual') return baseFetch(url, init);
    const keepsMethodFor = (status: number) => status === 307 || status === 308 || (init?.method ?? 'GET').toUpperCase() === 'GET';
    let current = new URL(url);
    let response = await baseFetch(current, { ...init, redirect: 'manual' });
    for (let followed = 0; followed < MAX_REDIRECTS; followed++) {
      const target = redirectTarget(response, current);
      if (!target || !keepsMethodFor(response.status) || !mayFollow(current, target)) break;
      await response.body?.cancel();
      current = target;
      response = await baseFetch(current, { ...init, redirect: 'manual' });
    }
    return response;
  };
}

/** For a redirect response that was not followed: a message naming where it pointed (without credentials). */
export function unfollowedRedirect(response: Response, requestUrl: URL | string): string | undefined {
  // A browser's manual redirect is opaque: the target cannot be read.
  if (response.type === 'opaqueredirect') return 'Redirect not followed: this runtime does not expose the redirect target';
  const from = response.url || requestUrl;
  const target = redirectTarget(response, from);
  if (!target) return undefined;
  target.username = '';
  target.password = '';
  target.search = '';
  target.hash = '';
  if (target.protocol === 'http:' && new URL(from).protocol === 'https:') {
    target.protocol = 'https:';
    return `Redirect to plain http not followed; try ${target.href} instead`;
  }
  return `Redirect to ${target.href} not followed`;
}

function redirectTarget(response: Response, requestUrl: URL | string): URL | undefined {
  if (!REDIRECT_STATUSES.has(response.status)) return undefined;
  const location = response.headers.get('location');
  if (!location) return undefined;
  try {
    return new URL(location, requestUrl);
  } catch {
    return undefined;
  }
}

/** Same origin, or http upgraded to https on the same host with default ports; never new credentials. */
function mayFollow(from: URL, to: URL): boolean {
  const addsCredentials = (to.username || to.password) && (to.username !== from.username || to.password !== from.password);
  if (addsCredentials) return false;
  if (from.protocol === to.protocol && from.hostname === to.hostname && from.port === to.port) return true;
  return from.hostname === to.hostname && from.protocol === 'http:' && from.port === '' && to.protocol === 'https:' && to.port === '';
}
