// The TypeScript media server on Streamable HTTP with an option its CLI does not take, for the probes that need
// one (fixtures/probes/README.md, "Servers with options"): the same createFilesystemServer and McpHttpHandler
// the CLI (packages/filesystem-media-server/src/cli.ts) builds, with nativeBytes on, listening as the CLI does.
//   node ts-http-configured.mjs HOST:PORT DIR [--session-init-timeout-ms N] [--no-host-check]
// Prints its URL (one line on stdout) once it listens, as the CLI does.
import { createFilesystemServer, resolveAllowedDirectories } from 'mcp-filesystem-media-server';
import { listenBun, listenNode, McpHttpHandler } from 'mcp-msgpack-transport';

const [address, dir, ...rest] = process.argv.slice(2);
const option = (name) => (rest.includes(name) ? Number(rest[rest.indexOf(name) + 1]) : undefined);
const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
const log = (message) => process.stderr.write(`${message}\n`);
const allowedDirectories = await resolveAllowedDirectories([dir], log);
const handler = new McpHttpHandler({
  createServer: () => createFilesystemServer({ allowedDirectories, log, nativeBytes: true }),
  nativeBytes: true,
  sessionInitTimeoutMs: option('--session-init-timeout-ms'),
  // DNS-rebinding protection off for every request, as behind a proxy that checks Host itself.
  ...(rest.includes('--no-host-check') ? { enableDnsRebindingProtection: false } : {}),
});
const listen = typeof globalThis.Bun !== 'undefined' ? listenBun : listenNode;
const running = await listen(handler, { host, port });
process.once('SIGTERM', () => running.close().then(() => process.exit(0)));
process.stdout.write(`${running.url.href}\n`);
