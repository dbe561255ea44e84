// A TypeScript MCP client for the Python interop tests: connects over stdio to the command given, lists the
// tools, calls one, and prints one JSON line with what it saw.
//   node client.mjs '{"command": ..., "args": [...], "transport": "ours"|"sdk", "wire": "auto"|"msgpack"|"json",
//                     "nativeBytes": true, "tool": "name", "arguments": {...}, "native": true}'
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioMsgpackClientTransport, callToolNative } from 'mcp-msgpack-transport';

const options = JSON.parse(process.argv[2]);
const transport =
  options.transport === 'sdk'
    ? new StdioClientTransport({ command: options.command, args: options.args, stderr: 'inherit' })
    : new StdioMsgpackClientTransport({
        command: options.command,
        args: options.args,
        wire: options.wire ?? 'auto',
        nativeBytes: options.nativeBytes ?? false,
        stderr: 'inherit',
      });
const client = new Client({ name: 'ts-interop-client', version: '1.0.0' });
const out = {};
try {
  await client.connect(transport);
  out.server = client.getServerVersion()?.name;
  out.tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
  if (options.tool) {
    const call = { name: options.tool, arguments: options.arguments ?? {} };
    const result = options.native ? await callToolNative(client, call) : await client.callTool(call);
    out.isError = result.isError ?? false;
    out.content = result.content.map((block) => {
      if (block.type === 'text') return { type: 'text', text: block.text.slice(0, 2000) };
      const data = block.data ?? block.resource?.blob;
      const bytes = typeof data === 'string' ? Buffer.from(data, 'base64') : Buffer.from(data);
      return { type: block.type, kind: typeof data === 'string' ? 'base64' : 'bytes', length: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
    });
  }
  out.wire = transport.wire ?? 'json';
} catch (error) {
  out.error = String(error?.stack ?? error);
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(`${JSON.stringify(out)}\n`);
