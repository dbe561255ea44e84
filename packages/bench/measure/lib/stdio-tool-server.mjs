// The benchmark's tool server (an SDK v1 McpServer, packages/bench/src/servers/tool-app.ts) on a build of
// StdioMsgpackServerTransport with default options, over this process's stdin and stdout:
//   node lib/stdio-tool-server.mjs [TRANSPORT_ENTRY]
// TRANSPORT_ENTRY: the transport's entry module (a path to another build's dist/esm/index.js, for a before /
// after comparison in one run); default the installed package, as the benchmark's own server uses.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createToolServer } from '../../dist/esm/servers/tool-app.js';

const entry = process.argv[2] ? pathToFileURL(resolve(process.argv[2])).href : 'mcp-msgpack-transport';
const { StdioMsgpackServerTransport } = await import(entry);
await createToolServer().connect(new StdioMsgpackServerTransport());
