// Deno, server and client: Deno.serve runs the MCP server through the package's web handler (the root
// entry resolves to the runtime-neutral core under Deno's `deno` condition), and clients in the same Deno
// process call it on both wires. Prints one line per check; exits 1 on any failure.
import { WebMcpHttpHandler } from 'mcp-msgpack-transport';
import { checkClient } from './check-client.mjs';
import { createServer } from './mcp-server.mjs';

// Deno sets `deno` (and `node`): the root must be the core, with the web runtime.
const resolved = import.meta.resolve('mcp-msgpack-transport');
if (!resolved.endsWith('/dist/esm/core.js')) throw new Error(`on Deno the root resolved to ${resolved}, not the core`);

const handler = new WebMcpHttpHandler({ createServer, nativeBytes: true });
const listening = Promise.withResolvers();
const server = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: listening.resolve }, (request) => handler.handle(request));
const { port } = await listening.promise;
let failed = false;
try {
  for (const which of ['ours', 'sdk']) console.log(`deno client -> deno server: ${await checkClient(`http://127.0.0.1:${port}/mcp`, which)}`);
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  await handler.close();
  await server.shutdown();
}
Deno.exit(failed ? 1 : 0);
