#!/usr/bin/env node
import process from 'node:process';
import { StdioMsgpackServerTransport } from 'mcp-msgpack-transport';
import { parseCliArgs, USAGE, type CliOptions } from './cli-args.js';
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
  const allowedDirectories = await resolveAllowedDirectories(options.directories, log);
  if (options.directories.length > 0 && allowedDirectories.length === 0) {
    log('Error: none of the given directories is accessible');
    process.exit(1);
  }
  if (options.directories.length === 0) log('No directories given: waiting for the client to provide MCP roots');
  const serverOptions = { allowedDirectories, maxMediaBytes: options.maxMediaBytes, log };

  if (options.http) {
    log('mcp-filesystem-media-server: --http is not available yet in this build (the MessagePack HTTP transport has not landed); use stdio');
    process.exit(2);
  }
  const server = createFilesystemServer(serverOptions);
  await server.connect(new StdioMsgpackServerTransport());
  log('mcp-filesystem-media-server running on stdio (JSON or MessagePack)');
}

main().catch((error: unknown) => {
  log(`mcp-filesystem-media-server: fatal: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  process.exit(1);
});
