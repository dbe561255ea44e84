// What every label on the summary means, said before the tables that use it: the scenario names
// (PAYLOAD/TRANSPORT), the variant ids of the comparisons, and the verdict marks. Only the labels the
// screen shows are defined, so the legend stays as short as the run.

/** What a scenario's payload part means (its size is in its name). */
function payloadMeaning(payload: string): string {
  if (payload.startsWith('codec/')) return 'one message encoded and decoded in-process, no server';
  if (payload === 'small-calls') return 'a small tool call';
  if (payload.startsWith('text-diff-')) return 'a tool result of a text diff of that size';
  if (payload.startsWith('text-log-')) return 'a tool result of a text log of that size';
  if (payload.startsWith('object-')) return 'a tool result of JSON objects of that size';
  if (payload.startsWith('embedding-')) return 'an embedding-sized structuredContent: 1,536 floats and 1,536 integers';
  if (payload.startsWith('series-')) return 'a structuredContent series of 100,000 points (timestamps and float values)';
  if (payload.startsWith('media-') && payload.endsWith('-link')) return 'the same image read through a symbolic link';
  if (payload.startsWith('media-')) return 'read_media_file of an image of that size';
  if (payload.startsWith('revision-')) return 'a small call under MCP 2025-11-25 (sessions) and 2026-07-28 (stateless)';
  return 'see the package README';
}

function transportMeaning(transport: string): string {
  if (transport === 'stdio') return 'the server as a child process, on its pipes';
  const clients = /^http-(\d+)$/.exec(transport)?.[1];
  if (clients) return clients === '1' ? 'HTTP, one client' : `HTTP, ${clients} clients at once`;
  return 'see the package README';
}

const VARIANT_MEANING: Record<string, string> = {
  json: "our transport's JSON wire",
  msgpack: "our transport's MessagePack wire (over HTTP: MessagePack always, both ways)",
  adaptive: "our client and server choosing each message's encoding, the one that costs less CPU (encoding: 'cheapest-cpu', the default; over stdio both ends on their defaults)",
  'msgpack-native': 'MessagePack with media as raw bytes (native bytes)',
  'json-gzip': 'our JSON wire with gzip',
  'stock-json': "the MCP SDK's own transport (JSON)",
  defaults: 'our HTTP client and server on their default options (replies on streams; media: native bytes on)',
  'stock-client':
    "the MCP SDK's own client (JSON) against our server on its defaults, what a user keeps (compared with adaptive over stdio, where adaptive is both ends on their defaults, and with defaults over HTTP)",
  'stock-json-gzip': "the SDK's own HTTP transport with gzip",
  official: 'the official filesystem server on the SDK',
  raw: 'the bare file with no MCP and no codec: length-prefixed bytes through the same pipe (stdio), one HTTP body of them (http)',
  session: 'MCP 2025-11-25 with a session (SDK v2)',
  stateless: 'MCP 2026-07-28, stateless (SDK v2)',
  'sdk-stateless-json': "SDK v2's own HTTP transport, 2026-07-28",
  'msgpack-guard': 'our MessagePack decoder: guard, then msgpackr',
  'msgpack-1pass': 'our single-pass guarded MessagePack decoder',
  'msgpack-js': '@msgpack/msgpack, for reference',
};

/** The variant ids a pair label shows: `stateless / session (msgpack)` shows stateless, session, msgpack. */
export function variantsOfPair(candidate: string, baseline: string): string[] {
  const ids = [candidate, baseline].flatMap((id) => {
    const wire = /^(session|stateless)-(msgpack|json)$/.exec(id);
    const best = /^min\(([^,]+),([^)]+)\)$/.exec(id);
    return wire ? [wire[1]!, wire[2]!] : best ? [best[1]!, best[2]!, 'min(A,B)'] : [id];
  });
  return [...new Set(ids)];
}

/** Names that share a meaning, said once: `object-50KB, object-1MB: a tool result of ...`. */
function grouped(names: Iterable<string>, meaning: (name: string) => string): string {
  const byMeaning = new Map<string, string[]>();
  for (const name of names) byMeaning.set(meaning(name), [...(byMeaning.get(meaning(name)) ?? []), name]);
  return [...byMeaning].map(([text, group]) => `${group.join(', ')}: ${text}`).join('; ');
}

/** The legend's sentences for these scenario names and variant ids. */
export function glossary(scenarioNames: readonly string[], variantIds: readonly string[], noiseBand: number): string[] {
  const payloads = new Set<string>();
  const transports = new Set<string>();
  for (const name of scenarioNames) {
    if (name.startsWith('codec/')) {
      payloads.add('codec/...');
      continue;
    }
    const slash = name.lastIndexOf('/');
    payloads.add(name.slice(0, slash));
    transports.add(name.slice(slash + 1));
  }
  const band = `±${(noiseBand * 100).toFixed(0)}%`;
  const lines = [
    `Ratios are ours / baseline, per call, the median over rounds that alternate the two; lower is better. W wins (every round favours ours and the median is beyond ${band}), = ties (the rounds' range crosses 1.0, or within ${band}), L loses.`,
    `Scenarios are PAYLOAD/TRANSPORT. ${grouped(payloads, (p) => payloadMeaning(p === 'codec/...' ? 'codec/' : p))}.`,
  ];
  if (transports.size > 0) lines.push(`Transports: ${grouped(transports, transportMeaning)}.`);
  const order = Object.keys(VARIANT_MEANING);
  const known = order.filter((id) => variantIds.includes(id));
  if (known.length > 0) lines.push(`Variants: ${grouped(known, (id) => VARIANT_MEANING[id]!)}.`);
  if (variantIds.includes('min(A,B)')) lines.push('min(A,B): whichever of A and B had the better median over the rounds, metric by metric.');
  return lines;
}
