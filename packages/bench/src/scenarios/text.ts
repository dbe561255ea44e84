import type { CallScenario } from '../runner/rounds.js';
import { callTool, toolScenario, type Budget } from './calls.js';

/** Venue 2: text-heavy tool results (a diff, a log): text is text on either wire. */
export function textScenarios(full: boolean, transport: 'stdio' | 'http', clients: number, httpOurs: boolean, budget: Budget): CallScenario[] {
  const cases: Array<{ kind: 'diff' | 'log'; bytes: number; name: string }> = [{ kind: 'diff', bytes: 64 * 1024, name: 'text-diff-64KB' }];
  if (full) cases.push({ kind: 'log', bytes: 1024 * 1024, name: 'text-log-1MB' });
  return cases.map(({ kind, bytes, name }) =>
    toolScenario('text', name, `${kind} text tool result, ${name.split('-').pop()}`, transport, clients, httpOurs, budget, async (client) => {
      const result = await callTool(client, 'text_result', { kind, bytes });
      const text = (result.content as Array<{ text?: string }>)[0]?.text;
      if (text?.length !== bytes) throw new Error(`text_result returned ${text?.length} characters, expected ${bytes}`);
    }),
  );
}
