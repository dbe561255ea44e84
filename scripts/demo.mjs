// Starts an MCP server over stdio, calls it over both wires (JSON and msgpack-v1), and prints what each
// sent: the same calls, the same results, the bytes on the wire. Run: npm run demo
import { spawn } from 'node:child_process';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import { StdioMsgpackClientTransport, StdioMsgpackServerTransport } from 'mcp-msgpack-transport';

if (process.argv[2] === '--server') {
  const server = new McpServer({ name: 'demo-server', version: '1.0.0' });
  server.registerTool('review', { description: 'Object-heavy structured result', inputSchema: { files: z.number().int() } }, async ({ files }) => {
    const structuredContent = {
      files: Array.from({ length: files }, (_, f) => ({
        path: `src/module${f}.ts`,
        additions: 12 + f,
        hunks: Array.from({ length: 3 }, (_, h) => ({ header: `@@ -${h * 10},7 +${h * 10},8 @@`, lines: ['  const a = 1;', '+ const b = 2;'] })),
      })),
    };
    return { content: [{ type: 'text', text: `${files} files` }], structuredContent };
  });
  server.registerTool('image', { description: 'An image as base64', inputSchema: { kib: z.number().int() } }, async ({ kib }) => {
    const bytes = Buffer.alloc(kib * 1024, 0x5a);
    return { content: [{ type: 'image', data: bytes.toString('base64'), mimeType: 'image/png' }] };
  });
  await server.connect(new StdioMsgpackServerTransport());
} else {
  const rows = [];
  for (const wire of ['json', 'msgpack']) {
    const counted = { toServer: 0, toClient: 0 };
    const transport = new StdioMsgpackClientTransport({
      command: process.execPath,
      args: [new URL(import.meta.url).pathname, '--server'],
      wire,
      // Count bytes on both pipes without changing what the transport reads or writes.
      spawn: (command, args, options) => {
        const child = spawn(command, args, options);
        child.stdout.on('data', (chunk) => (counted.toClient += chunk.length));
        const write = child.stdin.write.bind(child.stdin);
        child.stdin.write = (chunk, ...rest) => {
          counted.toServer += chunk.length;
          return write(chunk, ...rest);
        };
        return child;
      },
    });
    const client = new Client({ name: 'demo-client', version: '1.0.0' });
    await client.connect(transport);
    for (const [name, args] of [
      ['review', { files: 200 }],
      ['image', { kib: 512 }],
    ]) {
      const before = { ...counted };
      const started = performance.now();
      const result = await client.callTool({ name, arguments: args });
      const ms = performance.now() - started;
      rows.push({ wire, tool: name, 'bytes to server': counted.toServer - before.toServer, 'bytes to client': counted.toClient - before.toClient, ms: ms.toFixed(1), ok: !result.isError });
    }
    await client.close();
  }
  console.log('One server binary, two wires (the server detects which one the client speaks):');
  console.table(rows);
  console.log('The image still travels as base64 here: native bytes (a negotiated extension) removes that tax.');
  console.log('For measured, side-by-side numbers run: npx mcp-msgpack-bench');
}
