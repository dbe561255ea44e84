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

/** The variants of the bench tool server for one transport and client count. */
export function toolVariants(transport: 'stdio' | 'http', clients: number, httpOurs: boolean): { variants: VariantSpec[]; comparisons: Array<[string, string]> } {
  const base = { transport, server: 'tools' as const, clients: transport === 'stdio' ? 1 : clients };
  if (transport === 'stdio') {
    return {
      variants: [
        { ...base, id: 'stock-json', label: 'SDK stdio (JSON)', stack: 'stock', wire: 'json' },
        { ...base, id: 'json', label: 'mcp-msgpack stdio, JSON wire', stack: 'ours', wire: 'json' },
        { ...base, id: 'msgpack', label: 'mcp-msgpack stdio, MessagePack', stack: 'ours', wire: 'msgpack' },
        { ...base, id: 'adaptive', label: 'mcp-msgpack stdio, per-message (cheapest CPU)', stack: 'ours', wire: 'msgpack', encoding: 'cheapest-cpu' },
      ],
      comparisons: [
        ['msgpack', 'json'],
        ['adaptive', 'json'],
        ['adaptive', 'msgpack'],
        ['msgpack', 'stock-json'],
        ['json', 'stock-json'],
      ],
    };
  }
  if (!httpOurs) {
    return {
      variants: [
        { ...base, id: 'stock-json', label: 'SDK HTTP (JSON)', stack: 'stock', wire: 'json' },
        { ...base, id: 'stock-json-gzip', label: 'SDK HTTP (JSON + gzip)', stack: 'stock', wire: 'json', gzip: true },
      ],
      comparisons: [['stock-json-gzip', 'stock-json']],
    };
  }
  return {
    variants: [
      { ...base, id: 'stock-json', label: 'SDK HTTP (JSON)', stack: 'stock', wire: 'json' },
      { ...base, id: 'json', label: 'mcp-msgpack HTTP, JSON wire', stack: 'ours', wire: 'json' },
      { ...base, id: 'json-gzip', label: 'mcp-msgpack HTTP, JSON + gzip', stack: 'ours', wire: 'json', gzip: true },
      { ...base, id: 'msgpack', label: 'mcp-msgpack HTTP, MessagePack always', stack: 'ours', wire: 'msgpack', encoding: 'smallest' },
      { ...base, id: 'adaptive', label: 'mcp-msgpack HTTP, per-message (cheapest CPU)', stack: 'ours', wire: 'msgpack', encoding: 'cheapest-cpu' },
    ],
    comparisons: [
      ['msgpack', 'json'],
      ['adaptive', 'json'],
      ['adaptive', 'msgpack'],
      ['msgpack', 'json-gzip'],
      ['msgpack', 'stock-json'],
      ['json', 'stock-json'],
    ],
  };
}

export function scenarioName(venueCase: string, transport: 'stdio' | 'http', clients: number): string {
  return transport === 'stdio' ? `${venueCase}/stdio` : `${venueCase}/http-${clients}`;
}

export function toolScenario(
  venue: CallScenario['venue'],
  venueCase: string,
  title: string,
  transport: 'stdio' | 'http',
  clients: number,
  httpOurs: boolean,
  budget: Budget,
  call: CallFunction,
): CallScenario {
  return {
    kind: 'calls',
    name: scenarioName(venueCase, transport, clients),
    venue,
    title,
    transport,
    clients: transport === 'stdio' ? 1 : clients,
    ...toolVariants(transport, clients, httpOurs),
    call,
    ...budget,
  };
}
