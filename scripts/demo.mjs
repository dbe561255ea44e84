// Starts an MCP server over stdio, calls it over both wires (JSON and msgpack-v1, then msgpack-v1 with the
// native-bytes extension) and prints what each sent: the same calls, the same results, the bytes on the
// wire. The image is 512 KiB: JSON and plain MessagePack carry it as base64 (a third more), native bytes as
// the bytes themselves. Run: npm run demo
import { spawn } from 'node:child_process';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import { callToolNative, nativeImage, StdioMsgpackClientTransport, StdioMsgpackServerTransport } from 'mcp-msgpack-transport';

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
  server.registerTool('image', { description: 'An image: bytes to clients that negotiate native bytes, base64 to the rest', inputSchema: { kib: z.number().int() } }, async ({ kib }) => {
    const bytes = Buffer.alloc(kib * 1024, 0x5a);
    return { content: [nativeImage(bytes, 'image/png')] };
  });
  await server.connect(new StdioMsgpackServerTransport(undefined, undefined, { nativeBytes: true }));
} else {
  const rows = [];
  for (const [label, wire, nativeBytes] of [
    ['json', 'json', false],
    ['msgpack', 'msgpack', false],
    ['msgpack + native bytes', 'msgpack', true],
  ]) {
    const counted = { toServer: 0, toClient: 0 };
    const transport = new StdioMsgpackClientTransport({
      command: process.execPath,
      args: [new URL(import.meta.url).pathname, '--server'],
      wire,
      nativeBytes,
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
      // With native bytes, callToolNative hands the image over as a Uint8Array (no base64 anywhere).
      const result = nativeBytes ? await callToolNative(client, { name, arguments: args }) : await client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(`${name} failed: ${result.content[0]?.text}`);
      const image = result.content[0];
      const media = image.type !== 'image' ? '-' : typeof image.data === 'string' ? `base64, ${Buffer.from(image.data, 'base64').length} bytes` : `Uint8Array, ${image.data.byteLength} bytes`;
      rows.push({ wire: label, tool: name, 'bytes to server': counted.toServer - before.toServer, 'bytes to client': counted.toClient - before.toClient, image: media });
    }
    await client.close();
  }
  console.log('One server binary, two wires (the server detects which one the client speaks), bytes per call:');
  console.table(rows);
  console.log('The image is 512 KiB: JSON and plain MessagePack carry it as base64 (a third more bytes, encoded and decoded);');
  console.log('with native bytes (a negotiated extension) it travels as the bytes themselves and arrives as a Uint8Array.');
  console.log('Times are left out: one call says nothing. For measured, side-by-side numbers run: npx mcp-msgpack-bench');
}
