#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { isLoopbackAddress, listenBun, listenNode, McpHttpHandler, StdioMsgpackServerTransport } from 'mcp-msgpack-transport';
import { parseCliArgs, USAGE, type CliOptions } from './cli-args.js';
import { descriptorPathsAvailable } from './security/fd-path.js';
import { garbageCollectorForThisProcess, reexecWithMallocSettings } from './process-memory.js';
import { createFilesystemServer, resolveAllowedDirectories } from './server.js';

const log = (message: string): void => void process.stderr.write(`${message}\n`);

async function main(): Promise<void> {
  let options: CliOptions;
  try {
    options = parseCliArgs(process.argv.slice(2));
  } catch (error) {
    log(`mcp-filesystem-media-server: ${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (options.help) {
    log(USAGE);
    return;
  }
  if (options.version) {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    process.stdout.write(`mcp-filesystem-media-server ${manifest.version}\n`);
    return;
  }
  // Before anything is read from stdin or listened on: the same process, with glibc's malloc settings.
  reexecWithMallocSettings();
  const allowedDirectories = await resolveAllowedDirectories(options.directories, log);
  if (options.directories.length > 0 && allowedDirectories.length === 0) {
    log('Error: none of the given directories is accessible');
    process.exit(1);
  }
  if (options.directories.length === 0) log('No directories given: waiting for the client to provide MCP roots');
  if (!(await descriptorPathsAvailable())) {
    log('Warning: /proc/self/fd is not available here: paths are re-checked by realpath instead, which does not stop a directory swapped for a symlink during a write (see README, "Security model")');
  }
  // Our transports carry the native-bytes adapter: media leaves as bin for clients that negotiate it.
  const serverOptions = { allowedDirectories, maxMediaBytes: options.maxMediaBytes, log, nativeBytes: true };

  if (options.http) {
    const handler = new McpHttpHandler({
      createServer: () => createFilesystemServer(serverOptions),
      nativeBytes: true,
      // Idle 15 s after a burst: a full collection gives back the burst's garbage (README, "Memory").
      idleRelease: { collectGarbage: garbageCollectorForThisProcess() },
    });
    const { host, port } = options.http;
    // On Bun, Bun.serve: replies leave without copies and media buffers are reused (Bun's node:http can do neither).
    const listen = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined' ? listenBun : listenNode;
    const running = await listen(handler, { host, port }).catch((error: unknown) => {
      const reason = listenFailure(error, host, port);
      if (reason === undefined) throw error;
      log(`mcp-filesystem-media-server: cannot listen on ${host}:${port}: ${reason}`);
      process.exit(1);
    });
    if (!isLoopbackAddress(options.http.host) && options.http.host !== 'localhost') {
      log(`Warning: listening on ${options.http.host}, not loopback: anyone who can reach this port can use the allowed directories`);
    }
    process.once('SIGINT', () => stopOnSignal('SIGINT', running.close));
    process.once('SIGTERM', () => stopOnSignal('SIGTERM', running.close));
    // The URL on stdout (one line) so scripts and tests can find the port when 0 was asked for.
    process.stdout.write(`${running.url.href}\n`);
    log(`mcp-filesystem-media-server listening on ${running.url.href} (Streamable HTTP, JSON or MessagePack)`);
    return;
  }
  // serveStdio picks the revision from the client's first message (2025-11-25's initialize, or a 2026-07-28
  // request) and pins one server instance for the connection, so roots from the client stay with it.
  const wire = new StdioMsgpackServerTransport(process.stdin, process.stdout, { nativeBytes: true });
  serveStdio(() => createFilesystemServer({ ...serverOptions, wireTransport: wire }), {
    transport: wire,
    onerror: (error) => log(`mcp-filesystem-media-server: ${error.message}`),
  });
  log('mcp-filesystem-media-server running on stdio (JSON or MessagePack)');
}

/** The longest a signal waits for sessions and connections to close before the process exits anyway. */
const STOP_GRACE_MS = 5000;

/**
 * A process manager's stop: says so on stderr, closes every session and connection (answers in flight are
 * cut), says how long that took, and exits 0; past STOP_GRACE_MS it says what it is still waiting for and
 * exits 0 anyway, so a stop is never silent and never hangs.
 */
function stopOnSignal(signal: NodeJS.Signals, close: () => Promise<void>): void {
  const started = performance.now();
  log(`mcp-filesystem-media-server: ${signal}: closing sessions and connections`);
  setTimeout(() => {
    log(`mcp-filesystem-media-server: still closing after ${STOP_GRACE_MS} ms: exiting anyway`);
    process.exit(0);
  }, STOP_GRACE_MS).unref();
  void close()
    .catch((error: unknown) => log(`mcp-filesystem-media-server: while closing: ${error instanceof Error ? error.message : String(error)}`))
    .finally(() => {
      log(`mcp-filesystem-media-server: stopped in ${Math.round(performance.now() - started)} ms`);
      process.exit(0);
    });
}

/** The usual reasons a listen fails, said in one line; undefined for anything else (reported in full). */
function listenFailure(error: unknown, host: string, port: number): string | undefined {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'EADDRINUSE':
      return `port ${port} is already in use (pick another port, or 0 for a free one)`;
    case 'EACCES':
      return `permission denied for port ${port} (ports below 1024 need privileges)`;
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this machine`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host ${host} could not be resolved`;
    default:
      return undefined;
  }
}

main().catch((error: unknown) => {
  log(`mcp-filesystem-media-server: fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
