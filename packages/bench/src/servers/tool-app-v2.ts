import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

/**
 * The small-calls tool on SDK v2's McpServer, for the revision venue: the same server answers the
 * 2025-11-25 session path and the 2026-07-28 stateless path, so their ratio is the cost of the path alone.
 * Built fresh per session, and per request on 2026-07-28, as SDK v2's own HTTP entry does.
 */
export function createToolServerV2(): McpServer {
  const server = new McpServer({ name: 'mcp-msgpack-bench-tools-v2', version: '0.1.0' });
  server.registerTool('small', { description: 'A small call: echoes a counter (revision venue).', inputSchema: z.object({ n: z.number().int(), tag: z.string().max(200) }) }, async ({ n, tag }) => ({
    content: [{ type: 'text', text: `ok ${tag} ${n}` }],
  }));
  return server;
}
