import type { CallScenario } from '../runner/rounds.js';
import { callTool, toolScenario, type Budget } from './calls.js';

/** Venue 3: object-heavy structuredContent (a code-review context), 50 KB and 1 MB of JSON. */
export function objectScenarios(full: boolean, transport: 'stdio' | 'http', clients: number, httpOurs: boolean, budget: Budget): CallScenario[] {
  const sizes = [50_000, 1_000_000];
  void full;
  return sizes.map((bytes) => {
    const label = bytes >= 1_000_000 ? `${bytes / 1_000_000}MB` : `${bytes / 1000}KB`;
    return toolScenario('object', `object-${label}`, `review context structuredContent, ${label}`, transport, clients, httpOurs, budget, async (client) => {
      const result = await callTool(client, 'review_context', { bytes });
      const files = (result.structuredContent as { files?: unknown[] } | undefined)?.files;
      if (!Array.isArray(files) || files.length === 0) throw new Error('review_context returned no files');
    });
  });
}
