import type { CallScenario } from '../runner/rounds.js';
import type { VariantSpec } from '../runner/variant.js';
import { callTool, scenarioName, type Budget } from './calls.js';

/**
 * The cost of MCP 2026-07-28 over HTTP next to the 2025-11-25 session path, on each of our wires: small
 * calls (where per-request overhead is everything) from SDK v2's Client through our HTTP client to our
 * handler serving SDK v2's McpServer. On 2026-07-28 every request gets a fresh server instance and carries
 * the client's identity in its _meta; on 2025-11-25 a session's server answers all of them. SDK v2's own
 * client and createMcpHandler on 2026-07-28 show what the same per-request model costs there.
 */
export function revisionScenarios(clients: number, budget: Budget): CallScenario[] {
  const base = { transport: 'http' as const, server: 'tools-v2' as const, stack: 'ours' as const, clients };
  const variants: VariantSpec[] = [
    { ...base, id: 'session-msgpack', label: 'SDK v2, 2025-11-25 session, MessagePack', wire: 'msgpack', revision: '2025-11-25' },
    { ...base, id: 'stateless-msgpack', label: 'SDK v2, 2026-07-28 stateless, MessagePack', wire: 'msgpack', revision: '2026-07-28' },
    { ...base, id: 'session-json', label: 'SDK v2, 2025-11-25 session, JSON', wire: 'json', revision: '2025-11-25' },
    { ...base, id: 'stateless-json', label: 'SDK v2, 2026-07-28 stateless, JSON', wire: 'json', revision: '2026-07-28' },
    // The SDK's own stateless path, for scale: its client and createMcpHandler, a server per request too.
    { ...base, id: 'sdk-stateless-json', label: "SDK v2's own HTTP, 2026-07-28", stack: 'stock', wire: 'json', revision: '2026-07-28' },
  ];
  return [
    {
      kind: 'calls',
      name: scenarioName('revision-small', 'http', clients),
      venue: 'revision',
      title: 'small tools/call: 2026-07-28 (stateless) vs the 2025-11-25 session path, SDK v2 on both ends',
      transport: 'http',
      clients,
      variants,
      comparisons: [
        ['stateless-msgpack', 'session-msgpack'],
        ['stateless-json', 'session-json'],
        ['stateless-msgpack', 'sdk-stateless-json'],
        ['stateless-json', 'sdk-stateless-json'],
      ],
      call: async (client, index) => {
        const result = await callTool(client, 'small', { n: index, tag: 'bench' });
        const text = (result.content as Array<{ text?: string }>)[0]?.text;
        if (text !== `ok bench ${index}`) throw new Error(`small returned ${text}`);
      },
      ...budget,
    },
  ];
}
