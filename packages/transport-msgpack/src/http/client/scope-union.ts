/**
 * OAuth scope strings (space-delimited, RFC 6749 section 3.3) for step-up authorization (SEP-2350): the
 * scopes to ask for are every scope asked for or granted so far plus the ones the server's challenge names,
 * so a step-up never loses a permission the client had.
 */

/** The distinct scopes of all `scopes`, in first-seen order; undefined when there are none. */
export function scopeUnion(...scopes: (string | undefined)[]): string | undefined {
  const seen = new Set<string>();
  for (const scope of scopes) for (const token of scope?.split(/\s+/) ?? []) if (token) seen.add(token);
  return seen.size > 0 ? [...seen].join(' ') : undefined;
}

/**
 * Whether `wanted` names a scope `granted` lacks. Then refreshing cannot help (a refresh never widens a
 * grant, RFC 6749 section 6) and the user has to authorize again. An absent `granted` counts as empty.
 */
export function widensGrant(wanted: string | undefined, granted: string | undefined): boolean {
  const have = new Set((granted ?? '').split(/\s+/).filter(Boolean));
  return (wanted ?? '').split(/\s+/).some((token) => token !== '' && !have.has(token));
}
