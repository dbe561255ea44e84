// Records small corpora of real MCP traffic for the compression venue (issue 41; a recorder, not a
// measurement: the measurements are `mcp-msgpack-bench --scenario compression` and `--scenario codings`),
// each reply stored as the JSON-RPC message the server sent, one {"request", "reply"} per line. Run from the
// repository root:
//   node packages/bench/dist/esm/compression/record-corpus.js
//     the official filesystem server (@modelcontextprotocol/server-filesystem, a dependency of the bench, run
//     locally over stdio) asked what a coding agent asks, on this repository's own files:
//     packages/bench/corpus/filesystem-session.jsonl
//   node packages/bench/dist/esm/compression/record-corpus.js --everything DIR
//     @modelcontextprotocol/server-everything (not a dependency: `npm install --prefix DIR
//     @modelcontextprotocol/server-everything` first) over stdio, each of its tools that returns content once
//     or twice, leaving out get-env (it returns the process's environment) and the tools that wait or fetch:
//     packages/bench/corpus/everything-session.jsonl
// The corpora change only when they are recorded again.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const root = resolve(process.cwd());

type Call = (name: string, args: Record<string, unknown>) => Promise<unknown>;

/** One session with a stdio server: initialize (on a connection of its own, as a client's first message), then `session`'s requests. */
async function record(args: string[], out: string, session: (call: Call, client: Client) => Promise<void>): Promise<void> {
  const pairs: { request: JSONRPCMessage; reply: JSONRPCMessage }[] = [];
  const initialize = { jsonrpc: '2.0' as const, id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'corpus-recorder', version: '1.0.0' } } };
  const first = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
  const initialized = new Promise<JSONRPCMessage>((resolve) => (first.onmessage = resolve));
  await first.start();
  await first.send(initialize);
  pairs.push({ request: initialize, reply: await initialized });
  await first.close();
  // Then every request and its reply as they cross the pipe.
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
  const sent = new Map<string | number, JSONRPCMessage>();
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
  await client.listTools();
  await session((name, args) => client.callTool({ name, arguments: args }), client);
  await client.close();
  writeFileSync(out, `${pairs.map((pair) => JSON.stringify(pair)).join('\n')}\n`);
  const bytes = pairs.reduce((sum, pair) => sum + JSON.stringify(pair.reply).length, 0);
  console.log(`wrote ${pairs.length} replies, ${bytes} bytes of JSON, to ${out}`);
}

async function filesystem(): Promise<void> {
  const serverEntry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
  const path = (p: string) => join(root, p);
  await record([serverEntry, root], path('packages/bench/corpus/filesystem-session.jsonl'), async (call) => {
    await call('list_allowed_directories', {});
    await call('list_directory', { path: path('packages/transport-msgpack/src/http') });
    await call('list_directory_with_sizes', { path: path('packages/transport-msgpack/src/wire') });
    await call('directory_tree', { path: path('packages/transport-msgpack/src/http') });
    await call('get_file_info', { path: path('packages/transport-msgpack/package.json') });
    await call('read_text_file', { path: path('packages/transport-msgpack/src/runtime/current.ts') });
    await call('read_text_file', { path: path('packages/transport-msgpack/src/http/server/exchange/responses.ts') });
    await call('read_text_file', { path: path('packages/transport-msgpack/SPEC.md'), head: 700 });
    await call('read_multiple_files', { paths: [path('packages/transport-msgpack/src/wire/errors.ts'), path('packages/transport-msgpack/src/http/media.ts')] });
    await call('search_files', { path: path('packages/transport-msgpack/src'), pattern: '**/*stream*' });
  });
}

async function everything(dir: string): Promise<void> {
  const manifest = join(resolve(dir), 'node_modules/@modelcontextprotocol/server-everything/package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  console.log(`@modelcontextprotocol/server-everything ${version}`);
  const entry = join(resolve(dir), 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  await record([entry, 'stdio'], join(root, 'packages/bench/corpus/everything-session.jsonl'), async (call, client) => {
    await call('echo', { message: 'Summarise the open pull requests that touch the HTTP transport.' });
    await call('get-sum', { a: 1234, b: 5678 });
    await call('get-annotated-message', { messageType: 'success', includeImage: false });
    await call('get-annotated-message', { messageType: 'error', includeImage: true });
    await call('get-structured-content', { location: 'Chicago' });
    await call('get-structured-content', { location: 'New York' });
    await call('get-resource-links', { count: 10 });
    await call('get-resource-reference', { resourceType: 'Text', resourceId: 1 });
    await call('get-resource-reference', { resourceType: 'Blob', resourceId: 2 });
    await call('get-tiny-image', {});
    const { resources } = await client.listResources();
    for (const resource of resources) await client.readResource({ uri: resource.uri });
    await client.listPrompts();
  });
}

const at = process.argv.indexOf('--everything');
if (at >= 0) await everything(process.argv[at + 1] ?? '.');
else await filesystem();
