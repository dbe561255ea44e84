import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { replayedResults } from '../compression/corpora.js';

/**
 * The compression venue's server: one tool, `replay`, that answers with a recorded tool result (a real
 * server's reply, stored in corpus/) or a synthetic shape, by corpus name and index. Each corpus is read
 * once, so a call's server cost is the MCP, wire and coding work.
 */
export function createReplayServer(): McpServer {
  const server = new McpServer({ name: 'mcp-msgpack-bench-replay', version: '0.1.0' });
  const corpora = new Map<string, Record<string, unknown>[]>();
  server.registerTool(
    'replay',
    {
      description: 'Answers with a recorded tool result or a synthetic shape (compression venue).',
      inputSchema: { corpus: z.string().max(100), index: z.number().int().nonnegative() },
    },
    async ({ corpus, index }) => {
      let results = corpora.get(corpus);
      if (results === undefined) {
        results = replayedResults(corpus);
        corpora.set(corpus, results);
      }
      return results[index % results.length] as never;
    },
  );
  return server;
}
