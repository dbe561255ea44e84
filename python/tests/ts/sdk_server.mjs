// The TS SDK's own Streamable HTTP server (JSON only, one session per client), serving `echo` on
// http://127.0.0.1:PORT/mcp (PORT = argv[2]): the stock server the Python client must fall back to JSON for.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const transports = new Map();

function newSession() {
  const server = new McpServer({ name: 'ts-sdk-server', version: '1.0.0' });
  server.tool('echo', { text: z.string() }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => transports.set(id, transport),
  });
  server.connect(transport);
  return transport;
}

createServer(async (req, res) => {
  const id = req.headers['mcp-session-id'];
  const transport = typeof id === 'string' && transports.has(id) ? transports.get(id) : newSession();
  await transport.handleRequest(req, res);
}).listen(Number(process.argv[2]), '127.0.0.1');
