import type { WireKind } from '../../codec/message-codec.js';
import type { FetchLike } from '../../mcp/types.js';

/**
 * What earlier connections of this process learned about an MCP endpoint's wire: that it does not take
 * MessagePack. A new client transport to that endpoint then speaks JSON from its first request, the way
 * the last connection ended, instead of posting MessagePack again and learning it again. That matters most
 * where a reconnect follows authorization (the documented step-up: finishAuth, then a new transport): an
 * auth layer in front of a JSON-only server reads the method from a JSON body, and judges a MessagePack
 * body it cannot read as a request it must refuse (401/403), which would cost another authorization round.
 * Keyed by the endpoint (origin and path: two paths of one origin may be two servers) as reached through
 * one fetch: transports given their own `fetch` (a proxy, a test double) share what they learn only with
 * transports given that same function; the others share the default fetch's. Only firm answers
 * are remembered (a 415, 400, 406, parse error or a JSON reply), for an hour (a server upgraded to
 * msgpack-v1 meanwhile is found out by the first connection after that), for at most 256 endpoints (the
 * oldest goes first); a MessagePack answer to a connection still finding out forgets it.
 */
const REMEMBER_MS = 60 * 60_000;
const MAX_ENDPOINTS = 256;
const DEFAULT_FETCH = {};
const memories = new WeakMap<object, Map<string, { wire: WireKind; at: number }>>();

const endpointOf = (url: URL): string => `${url.origin}${url.pathname}`;

/** What the endpoints reached through `fetch` (undefined: the default one) showed. */
export interface WireMemory {
  remember(url: URL, wire: WireKind): void;
  recall(url: URL): WireKind | undefined;
}

export function wireMemory(fetch: FetchLike | undefined): WireMemory {
  const owner = fetch ?? DEFAULT_FETCH;
  let learned = memories.get(owner);
  if (!learned) {
    learned = new Map();
    memories.set(owner, learned);
  }
  return { remember: (url, wire) => rememberWire(learned, url, wire), recall: (url) => recalledWire(learned, url) };
}

function rememberWire(learned: Map<string, { wire: WireKind; at: number }>, url: URL, wire: WireKind): void {
  const key = endpointOf(url);
  learned.delete(key);
  if (wire === 'msgpack') return;
  learned.set(key, { wire, at: Date.now() });
  if (learned.size > MAX_ENDPOINTS) learned.delete(learned.keys().next().value!);
}

/** The wire an earlier connection to `url` settled on, when it was JSON and not too long ago. */
function recalledWire(learned: Map<string, { wire: WireKind; at: number }>, url: URL): WireKind | undefined {
  const key = endpointOf(url);
  const entry = learned.get(key);
  if (entry && Date.now() - entry.at > REMEMBER_MS) learned.delete(key);
  return learned.get(key)?.wire;
}
