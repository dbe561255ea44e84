import type { CallScenario } from '../runner/rounds.js';
import { callTool, toolScenario, type Budget } from './calls.js';

/** Venue 5: small calls, where per-message overhead is everything and payload size is nothing. */
export function smallScenarios(transport: 'stdio' | 'http', clients: number, httpOurs: boolean, budget: Budget): CallScenario[] {
  return [
    toolScenario('small', 'small-calls', 'small tools/call request and result', transport, clients, httpOurs, budget, async (client, index) => {
      const result = await callTool(client, 'small', { n: index, tag: 'bench' });
      const text = (result.content as Array<{ text?: string }>)[0]?.text;
      if (text !== `ok bench ${index}`) throw new Error(`small returned ${text}`);
    }),
  ];
}
