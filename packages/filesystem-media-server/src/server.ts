import { McpServer } from '@modelcontextprotocol/server';
import { DEFAULT_MAX_MEDIA_BYTES } from './media/limits.js';
import { deliveryFor } from './media/media-content.js';
import { registerFileResources } from './resources.js';
import { installRootsHandling } from './roots.js';
import { AllowedDirectories, type AllowedDirectory } from './security/allowed-directories.js';
import { GuardedFs } from './security/guarded-fs.js';
import type { ToolContext } from './tools/context.js';
import { registerInfoTools } from './tools/info-tools.js';
import { registerListTools } from './tools/list-tools.js';
import { registerMediaTool } from './tools/media-tool.js';
import { registerReadTools } from './tools/read-tools.js';
import { registerWriteTools } from './tools/write-tools.js';

export const SERVER_NAME = 'mcp-filesystem-media-server';
export const SERVER_VERSION = '0.1.0';

export interface FilesystemServerOptions {
  /**
   * The directories the server may touch, already resolved (see `resolveAllowedDirectories`). Each server
   * keeps its own copy: MCP roots from one client replace only that server's list.
   */
  allowedDirectories: readonly AllowedDirectory[] | AllowedDirectories;
  /** Largest file read_media_file and resources/read return, in bytes. Default: 64 MiB minus 1 MiB. */
  maxMediaBytes?: number;
  /**
   * Hand media to the transport as bytes (mcp-msgpack-transport's native-bytes helpers): true when the
   * server is connected through mcp-msgpack-transport's transports, which then send MessagePack bin to
   * clients that negotiated native bytes and base64 (encoded once) to everyone else. Leave false (the
   * default) for any other transport: the media is then encoded as base64 in the handler.
   */
  nativeBytes?: boolean;
  /**
   * The transport on the wire, when the server is connected through something in between (SDK v2's
   * `serveStdio` connects each server to an inner channel): where media delivery reads whether the client
   * negotiated native bytes. Default: the server's own transport.
   */
  wireTransport?: object;
  /** Diagnostics (roots updates and the like). Default: stderr. */
  log?: (message: string) => void;
}

/** Resolves directory arguments (`~` expanded, real paths taken, missing ones skipped with a warning). */
export async function resolveAllowedDirectories(dirs: readonly string[], warn?: (message: string) => void): Promise<AllowedDirectory[]> {
  return (await AllowedDirectories.fromPaths(dirs, warn)).snapshot();
}

/** A filesystem McpServer with the official server's 14 tools, file resources and roots handling. */
export function createFilesystemServer(options: FilesystemServerOptions): McpServer {
  const maxMediaBytes = options.maxMediaBytes ?? DEFAULT_MAX_MEDIA_BYTES;
  if (!Number.isSafeInteger(maxMediaBytes) || maxMediaBytes < 0) throw new RangeError(`maxMediaBytes must be a non-negative integer, got ${maxMediaBytes}`);
  const log = options.log ?? ((message: string) => console.error(message));
  const given = options.allowedDirectories;
  const allowed = new AllowedDirectories(given instanceof AllowedDirectories ? given.snapshot() : given);
  const server = new McpServer({ name: SERVER_NAME, version: SERVER_VERSION });
  const ctx: ToolContext = { fs: new GuardedFs(allowed), allowed, maxMediaBytes, media: deliveryFor(server, options.nativeBytes ?? false, options.wireTransport) };

  registerReadTools(server, ctx);
  registerMediaTool(server, ctx);
  registerWriteTools(server, ctx);
  registerListTools(server, ctx);
  registerInfoTools(server, ctx);
  registerFileResources(server, ctx);
  installRootsHandling(server, allowed, log);
  return server;
}
