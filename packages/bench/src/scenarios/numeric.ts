import { EMBEDDING_DIMENSIONS, SERIES_POINTS } from '../payloads.js';
import type { CallScenario } from '../runner/rounds.js';
import { callTool, toolScenario, type Budget } from './calls.js';

/** The numeric venue's payloads: the tool's `kind` argument, the scenario's name, and what must arrive. */
export const NUMERIC_CASES = [
  { kind: 'embedding', name: 'embedding-1536', title: 'embedding structuredContent, 1,536 floats and 1,536 integers', columns: ['embedding', 'tokenIds'], length: EMBEDDING_DIMENSIONS },
  { kind: 'series', name: 'series-100k', title: 'series structuredContent, 100,000 timestamps and float values', columns: ['timestamps', 'values'], length: SERIES_POINTS },
] as const;

/**
 * Quick mode keeps our three wires and the stock client on our defaults: the venue is about JSON's numbers as
 * text, not about the SDK's own server or gzip.
 */
function oursOnly(scenario: CallScenario): CallScenario {
  const keep = new Set(['json', 'msgpack', 'adaptive', 'defaults', 'stock-client']);
  return { ...scenario, variants: scenario.variants.filter((v) => keep.has(v.id)), comparisons: scenario.comparisons.filter(([c, b]) => keep.has(c) && keep.has(b)) };
}

/**
 * Venue 6: number-heavy structuredContent, where JSON writes every number as text. `withSeries` false keeps
 * to the embedding (quick mode with 16 clients: sixteen 3 MB series at once cost more time than they tell).
 */
export function numericScenarios(full: boolean, transport: 'stdio' | 'http', clients: number, httpOurs: boolean, budget: Budget, withSeries = true): CallScenario[] {
  const scenarios = NUMERIC_CASES.filter((c) => withSeries || c.kind === 'embedding').map(({ kind, name, title, columns, length }) =>
    toolScenario('numeric', name, title, transport, clients, httpOurs, budget, async (client) => {
      const result = await callTool(client, 'numeric_result', { kind });
      const content = result.structuredContent as Record<string, unknown> | undefined;
      for (const column of columns) {
        const values = content?.[column];
        if (!Array.isArray(values) || values.length !== length || typeof values[length - 1] !== 'number') {
          throw new Error(`numeric_result ${kind}: ${column} did not arrive as ${length} numbers`);
        }
      }
    }),
  );
  return full ? scenarios : scenarios.map(oursOnly);
}
