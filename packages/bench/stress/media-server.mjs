// The filesystem media server over HTTP as its CLI's --http sets it up (McpHttpHandler, native bytes, the
// CLI's idle release, listenNode on Node and listenBun on Bun), in a process of its own that the stress
// drivers start (media-driver.mjs) and watch from outside with the bench's /proc readers:
//   node|bun [--expose-gc] packages/bench/stress/media-server.mjs DIR [--handler-options JSON]
// It prints one JSON line {"url": ...} once listening; then each line on stdin gets a line back:
//   gc    a full garbage collection (needs --expose-gc on Node), then "{}"
//   exit  closes the server and exits
import { createInterface } from 'node:readline';
import { createFilesystemServer, garbageCollectorForThisProcess, resolveAllowedDirectories } from 'mcp-filesystem-media-server';
import { listenBun, listenNode, McpHttpHandler } from 'mcp-msgpack-transport';

const dir = process.argv[2];
const at = process.argv.indexOf('--handler-options');
const extra = at > 0 ? JSON.parse(process.argv[at + 1]) : {};
const isBun = typeof globalThis.Bun !== 'undefined';

const serverOptions = { allowedDirectories: await resolveAllowedDirectories([dir]), log: () => {}, nativeBytes: true };
const handler = new McpHttpHandler({ createServer: () => createFilesystemServer(serverOptions), nativeBytes: true, idleRelease: { collectGarbage: garbageCollectorForThisProcess() }, ...extra });
const running = await (isBun ? listenBun : listenNode)(handler, { port: 0 });

function collect() {
  if (isBun) globalThis.Bun.gc(true);
  else if (typeof globalThis.gc === 'function') {
    // Twice: the first pass runs finalizers that free what the second one can take.
    globalThis.gc();
    globalThis.gc();
  }
}

process.stdout.write(`${JSON.stringify({ url: running.url.href, runtime: isBun ? `bun ${globalThis.Bun.version}` : `node ${process.version}` })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const command = line.trim();
  if (command === 'exit') break;
  if (command === 'gc') collect();
  process.stdout.write(`${JSON.stringify({ sessions: handler.sessionCount, streams: handler.openStreamCount })}\n`);
}
await running.close();
process.exit(0);
