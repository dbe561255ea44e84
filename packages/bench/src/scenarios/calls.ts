import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallFunction } from '../runner/measure.js';
import type { CallScenario } from '../runner/rounds.js';
import type { VariantSpec } from '../runner/variant.js';

/** Calls a tool the way an application does (client.callTool) and refuses error results. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args })) as Record<string, unknown>;
  if (result.isError) throw new Error(`${name} returned an error: ${JSON.stringify(result.content).slice(0, 300)}`);
  return result;
}

/**
 * How long a scenario runs. Calls per round are chosen after the warm-up, from the slowest variant's time
 * per call, so that one round of one variant lasts about `roundMs` whatever the payload size.
 */
export interface Budget {
  rounds: number;
  roundMs: number;
  warmupMs: number;
  /** The warm-up of a variant whose server and clients a previous scenario already warmed. */
  reusedWarmupMs?: number;
  minCalls: number;
  maxCalls: number;
}

/**
 * Our variants of the bench tool server per transport: our JSON wire, MessagePack always, and the adaptive
 * default, each message in the encoding that costs less CPU (over stdio a mixed stream, SPEC.md 7.4; over
 * HTTP per body, 9.6). A variant added here gets its comparisons and targets by itself. Over stdio the
 * adaptive variant is both transports on their defaults (nothing set), which is what a user gets; over HTTP
 * it answers in one body (`enableJsonResponse`), so the HTTP defaults are a variant of their own.
 */
const OURS: Record<'stdio' | 'http', Array<Pick<VariantSpec, 'id' | 'label' | 'wire' | 'encoding' | 'defaults'>>> = {
  stdio: [
    { id: 'json', label: 'mcp-msgpack stdio, JSON wire', wire: 'json' },
    { id: 'msgpack', label: 'mcp-msgpack stdio, MessagePack', wire: 'msgpack' },
    { id: 'adaptive', label: 'mcp-msgpack stdio, defaults (per message, cheapest CPU)', wire: 'msgpack', defaults: true },
  ],
  http: [
    { id: 'json', label: 'mcp-msgpack HTTP, JSON wire', wire: 'json' },
    { id: 'msgpack', label: 'mcp-msgpack HTTP, MessagePack always', wire: 'msgpack', encoding: 'smallest' },
    { id: 'adaptive', label: 'mcp-msgpack HTTP, per-message (cheapest CPU)', wire: 'msgpack', encoding: 'cheapest-cpu' },
  ],
};

/**
 * What a user who adopts this package runs, against what a user keeps (issue 30): our client on its defaults
 * and the SDK's own JSON client, each against our server on its defaults, the same program started the same
 * way. Over stdio our side is the adaptive variant itself (see OURS). Returns the variants to add and the
 * comparison: ours on defaults / the stock client.
 */
export function stockClientVariants(
  transport: 'stdio' | 'http',
  base: Pick<VariantSpec, 'transport' | 'server' | 'clients'>,
  name: string,
  extra: Partial<VariantSpec> = {},
): { variants: VariantSpec[]; comparison: [string, string] } {
  const where = transport === 'stdio' ? 'stdio' : 'HTTP';
  const stock: VariantSpec = { ...base, ...extra, id: 'stock-client', label: `${name}SDK ${where} client (JSON) on mcp-msgpack ${where} defaults`, stack: 'ours', client: 'stock', wire: 'json', defaults: true };
  delete stock.nativeBytes;
  if (transport === 'stdio') return { variants: [stock], comparison: ['adaptive', 'stock-client'] };
  const ours: VariantSpec = { ...base, ...extra, id: 'defaults', label: `${name}mcp-msgpack HTTP client and server, defaults`, stack: 'ours', wire: 'msgpack', defaults: true };
  return { variants: [ours, stock], comparison: ['defaults', 'stock-client'] };
}

/** Our wires against each other: MessagePack always and adaptive against JSON, adaptive against MessagePack. */
export function wireComparisons(ids: readonly string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [['msgpack', 'json']];
  if (ids.includes('adaptive')) pairs.push(['adaptive', 'json'], ['adaptive', 'msgpack']);
  return pairs.filter(([c, b]) => ids.includes(c) && ids.includes(b));
}

/** The variants of the bench tool server for one transport and client count. */
export function toolVariants(transport: 'stdio' | 'http', clients: number, httpOurs: boolean): { variants: VariantSpec[]; comparisons: Array<[string, string]> } {
  const base = { transport, server: 'tools' as const, clients: transport === 'stdio' ? 1 : clients };
  if (transport === 'http' && !httpOurs) {
    return {
      variants: [
        { ...base, id: 'stock-json', label: 'SDK HTTP (JSON)', stack: 'stock', wire: 'json' },
        { ...base, id: 'stock-json-gzip', label: 'SDK HTTP (JSON + gzip)', stack: 'stock', wire: 'json', gzip: true },
      ],
      comparisons: [['stock-json-gzip', 'stock-json']],
    };
  }
  const ours: VariantSpec[] = OURS[transport].map((v) => ({ ...base, ...v, stack: 'ours' }));
  const stock: VariantSpec = { ...base, id: 'stock-json', label: transport === 'stdio' ? 'SDK stdio (JSON)' : 'SDK HTTP (JSON)', stack: 'stock', wire: 'json' };
  const ids = ours.map((v) => v.id);
  const kept = stockClientVariants(transport, base, '');
  if (transport === 'stdio') {
    return { variants: [stock, ...ours, ...kept.variants], comparisons: [...wireComparisons(ids), kept.comparison, ['msgpack', 'stock-json'], ['json', 'stock-json']] };
  }
  const gzip: VariantSpec = { ...base, id: 'json-gzip', label: 'mcp-msgpack HTTP, JSON + gzip', stack: 'ours', wire: 'json', gzip: true };
  return {
    // The order of the old list (stock, json, gzip, msgpack, adaptive), then ours on defaults and the stock client: the rounds alternate in this order.
    variants: [stock, ours[0]!, gzip, ...ours.slice(1), ...kept.variants],
    comparisons: [...wireComparisons(ids), kept.comparison, ['msgpack', 'json-gzip'], ['msgpack', 'stock-json'], ['json', 'stock-json']],
  };
}

/**
 * Quick mode leaves out what neither its summary nor its targets read, to make room for the stock client:
 * JSON + gzip (its bytes and CPU are --full's), and the SDK's own server except over HTTP with one client for
 * small and object calls (the targets against it; with 16 clients, a server start of its own for two
 * scenarios). Both stay in --full.
 */
export function quickVariants<T extends { venue: string; transport: 'stdio' | 'http'; clients: number; variants: VariantSpec[]; comparisons: Array<[string, string]> }>(scenario: T): T {
  const sdkTargets = scenario.transport === 'http' && scenario.clients === 1 && (scenario.venue === 'small' || scenario.venue === 'object');
  const drop = new Set(['json-gzip', ...(sdkTargets ? [] : ['stock-json'])]);
  return { ...scenario, variants: scenario.variants.filter((v) => !drop.has(v.id)), comparisons: scenario.comparisons.filter(([c, b]) => !drop.has(c) && !drop.has(b)) };
}

export function scenarioName(venueCase: string, transport: 'stdio' | 'http', clients: number): string {
  return transport === 'stdio' ? `${venueCase}/stdio` : `${venueCase}/http-${clients}`;
}

export function toolScenario(venue: CallScenario['venue'], venueCase: string, title: string, transport: 'stdio' | 'http', clients: number, httpOurs: boolean, budget: Budget, call: CallFunction): CallScenario {
  return {
    kind: 'calls',
    name: scenarioName(venueCase, transport, clients),
    venue,
    title,
    transport,
    clients: transport === 'stdio' ? 1 : clients,
    ...toolVariants(transport, clients, httpOurs),
    bestOf: [['adaptive', 'json', 'msgpack']],
    call,
    ...budget,
  };
}
