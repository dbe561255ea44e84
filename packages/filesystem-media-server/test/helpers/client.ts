import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createFilesystemServer, resolveAllowedDirectories, type FilesystemServerOptions } from 'mcp-filesystem-media-server';

export const LIMIT = 20_000;

export interface Connected {
  client: Client;
  close(): Promise<void>;
}

/** Our server in-process, behind a linked in-memory pair (fast; for behaviour and attack tests). */
export async function connectInProcess(dirs: string[], extra: Partial<FilesystemServerOptions> = {}, client = newClient()): Promise<Connected> {
  const server = createFilesystemServer({ allowedDirectories: await resolveAllowedDirectories(dirs), log: () => {}, ...extra });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close().catch(() => {});
      await server.close().catch(() => {});
    },
  };
}

export async function connectOver(transport: Transport, client = newClient()): Promise<Connected> {
  await client.connect(transport);
  return { client, close: () => client.close().catch(() => {}) };
}

export function newClient(capabilities: Record<string, unknown> = {}): Client {
  return new Client({ name: 'fsms-test', version: '0.0.0' }, { capabilities });
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: LIMIT })) as CallToolResult;
}

export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : `<${c.type}>`)).join('\n');
}

/** Path of our built CLI and of the official server's entry point. */
export const OUR_CLI = fileURLToPath(new URL('../../../dist/esm/cli.js', import.meta.url));
export const OFFICIAL_SERVER = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
