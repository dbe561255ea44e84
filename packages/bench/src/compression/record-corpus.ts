// Records a small corpus of real MCP traffic for the compression venue (issue 41): the official filesystem
// server (@modelcontextprotocol/server-filesystem, run locally over stdio) asked what a coding agent asks,
// each reply stored as the JSON-RPC message the server sent. Run from the repository root:
//   node packages/bench/dist/esm/compression/record-corpus.js
// It writes packages/bench/corpus/filesystem-session.jsonl (one {"request", "reply"} per line). The files read
// are this repository's own, so the corpus changes only when it is recorded again.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const root = resolve(process.cwd());
const out = join(root, 'packages/bench/corpus/filesystem-session.jsonl');
const serverEntry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

async function main(): Promise<void> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [serverEntry, root], stderr: 'ignore' });
  const sent = new Map<string | number, JSONRPCMessage>();
  const pairs: { request: JSONRPCMessage; reply: JSONRPCMessage }[] = [];
  // initialize as a client's first message, on a connection of its own (the SDK's Client sends it itself).
  const initialize = { jsonrpc: '2.0' as const, id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'corpus-recorder', version: '1.0.0' } } };
  const first = new StdioClientTransport({ command: process.execPath, args: [serverEntry, root], stderr: 'ignore' });
  const initialized = new Promise<JSONRPCMessage>((resolve) => (first.onmessage = resolve));
  await first.start();
  await first.send(initialize);
  pairs.push({ request: initialize, reply: await initialized });
  await first.close();
  // Then every request and its reply as they cross the pipe.
  const client = new Client({ name: 'corpus-recorder', version: '1.0.0' });
  await client.connect(transport);
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    if ('id' in message && 'method' in message) sent.set(message.id, message);
    return send(message);
  };
  const onmessage = transport.onmessage!;
  transport.onmessage = (message) => {
    if ('id' in message && !('method' in message) && sent.has(message.id!)) pairs.push({ request: sent.get(message.id!)!, reply: message });
    onmessage(message);
  };
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
  await client.listTools();
  await call('list_allowed_directories', {});
  await call('list_directory', { path: join(root, 'packages/transport-msgpack/src/http') });
  await call('list_directory_with_sizes', { path: join(root, 'packages/transport-msgpack/src/wire') });
  await call('directory_tree', { path: join(root, 'packages/transport-msgpack/src/http') });
  await call('get_file_info', { path: join(root, 'packages/transport-msgpack/package.json') });
  await call('read_text_file', { path: join(root, 'packages/transport-msgpack/src/runtime/current.ts') });
  await call('read_text_file', { path: join(root, 'packages/transport-msgpack/src/http/server/exchange/responses.ts') });
  await call('read_text_file', { path: join(root, 'packages/transport-msgpack/SPEC.md'), head: 700 });
  await call('read_multiple_files', { paths: [join(root, 'packages/transport-msgpack/src/wire/errors.ts'), join(root, 'packages/transport-msgpack/src/http/media.ts')] });
  await call('search_files', { path: join(root, 'packages/transport-msgpack/src'), pattern: '**/*stream*' });
  await client.close();
  writeFileSync(out, `${pairs.map((pair) => JSON.stringify(pair)).join('\n')}\n`);
  const bytes = pairs.reduce((sum, pair) => sum + JSON.stringify(pair.reply).length, 0);
  console.log(`wrote ${pairs.length} replies, ${bytes} bytes of JSON, to ${out} (${dirname(serverEntry)})`);
}

await main();
