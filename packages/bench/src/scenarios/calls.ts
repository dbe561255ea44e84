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
  minCalls: number;
  maxCalls: number;
}

/**
 * Our variants of the bench tool server per transport: our JSON wire, MessagePack always, and the adaptive
 * default, each message in the encoding that costs less CPU (over stdio a mixed stream, SPEC.md 7.4; over
 * HTTP per body, 9.6). A variant added here gets its comparisons and targets by itself.
 */
const OURS: Record<'stdio' | 'http', Array<Pick<VariantSpec, 'id' | 'label' | 'wire' | 'encoding'>>> = {
  stdio: [
    { id: 'json', label: 'mcp-msgpack stdio, JSON wire', wire: 'json' },
    { id: 'msgpack', label: 'mcp-msgpack stdio, MessagePack', wire: 'msgpack' },
    { id: 'adaptive', label: 'mcp-msgpack stdio, per-message (cheapest CPU)', wire: 'msgpack', encoding: 'cheapest-cpu' },
  ],
  http: [
    { id: 'json', label: 'mcp-msgpack HTTP, JSON wire', wire: 'json' },
    { id: 'msgpack', label: 'mcp-msgpack HTTP, MessagePack always', wire: 'msgpack', encoding: 'smallest' },
    { id: 'adaptive', label: 'mcp-msgpack HTTP, per-message (cheapest CPU)', wire: 'msgpack', encoding: 'cheapest-cpu' },
  ],
};

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
  if (transport === 'stdio') {
    return { variants: [stock, ...ours], comparisons: [...wireComparisons(ids), ['msgpack', 'stock-json'], ['json', 'stock-json']] };
  }
  const gzip: VariantSpec = { ...base, id: 'json-gzip', label: 'mcp-msgpack HTTP, JSON + gzip', stack: 'ours', wire: 'json', gzip: true };
  return {
    // The order of the old list (stock, json, gzip, msgpack, adaptive): the rounds alternate in this order.
    variants: [stock, ours[0]!, gzip, ...ours.slice(1)],
    comparisons: [...wireComparisons(ids), ['msgpack', 'json-gzip'], ['msgpack', 'stock-json'], ['json', 'stock-json']],
  };
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
