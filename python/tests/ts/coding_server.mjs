// Our TS server (McpHttpHandler on node:http) with content codings on for every client that asks (compression:
// true, loopback included), serving `echo` and `bulk` (a 60 KB text result) on the port in argv[2]; it prints
// its URL. The Python client must decode its coded replies and code its large requests for it (SPEC 10).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { listenNode, McpHttpHandler } from 'mcp-msgpack-transport';
import { z } from 'zod';

const handler = new McpHttpHandler({
  createServer: () => {
    const server = new McpServer({ name: 'ts-coding-server', version: '1.0.0' });
    server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    server.registerTool('bulk', {}, async () => ({
      content: [{ type: 'text', text: Array.from({ length: 800 }, (_, i) => `line ${i}: the quick brown fox jumps over the lazy dog`).join('\n') }],
    }));
    return server;
  },
  compression: true,
});
const running = await listenNode(handler, { port: Number(process.argv[2]) });
process.stdout.write(`${running.url.href}\n`);
