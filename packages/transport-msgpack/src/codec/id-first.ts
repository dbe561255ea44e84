/**
 * A message with `jsonrpc` and `id` as its first members (SPEC.md 3.2.6), so that a receiver that refuses it
 * further on (over its decode budget, say) still reads the id and fails the right request at once (5.2)
 * rather than leaving it to time out. The SDKs' servers build responses with the id last
 * (`{result, jsonrpc, id}`); a message already in order is returned as it is, uncopied.
 */
export function idFirst(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !('id' in value)) return value;
  let position = 0;
  for (const key in value) {
    if (key === 'id') return value;
    if (key !== 'jsonrpc' || position++ > 0) break;
  }
  const { jsonrpc, id, ...rest } = value as Record<string, unknown>;
  return { jsonrpc, id, ...rest };
}
