import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RootsListChangedNotificationSchema, type Root } from '@modelcontextprotocol/sdk/types.js';
import { expandHome, type AllowedDirectories, type AllowedDirectory } from './security/allowed-directories.js';

/** Turns MCP roots into allowed directories: file:// URIs (or plain paths) of existing directories, real paths. */
export async function directoriesFromRoots(roots: readonly Root[], log: (message: string) => void): Promise<AllowedDirectory[]> {
  const out: AllowedDirectory[] = [];
  for (const root of roots) {
    try {
      // Only file:// URIs (or bare paths, as the official server accepts) name directories here.
      if (!root.uri.startsWith('file://') && /^[a-z][a-z0-9+.-]*:/i.test(root.uri)) throw new Error('not a file URI');
      const raw = root.uri.startsWith('file://') ? fileURLToPath(root.uri) : root.uri;
      const real = await fs.realpath(path.resolve(expandHome(raw)));
      if (!(await fs.stat(real)).isDirectory()) {
        log(`Skipping non-directory root: ${real}`);
        continue;
      }
      out.push({ given: real, real });
    } catch {
      log(`Skipping invalid path or inaccessible root: ${root.uri}`);
    }
  }
  return out;
}

/**
 * MCP roots, as the official server handles them: after initialize, a client that declares roots is asked
 * for them and they replace the allowed list (when at least one is usable); roots/list_changed asks again.
 * Without roots capability, the command-line directories stay, and having none is an error.
 */
export function installRootsHandling(server: McpServer, allowed: AllowedDirectories, log: (message: string) => void): void {
  const refresh = async (): Promise<void> => {
    const { roots } = await server.server.listRoots();
    const dirs = await directoriesFromRoots(roots, log);
    if (dirs.length === 0) {
      log('No valid root directories provided by client; keeping the current allowed directories');
      return;
    }
    allowed.replace(dirs);
    log(`Updated allowed directories from MCP roots: ${dirs.length} valid directories`);
  };

  server.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    await refresh().catch((error: unknown) => log(`Failed to request roots from client: ${String(error)}`));
  });

  server.server.oninitialized = () => {
    if (server.server.getClientCapabilities()?.roots) {
      void refresh().catch((error: unknown) => log(`Failed to request initial roots from client: ${String(error)}`));
    } else if (allowed.size === 0) {
      log('No allowed directories: start the server with directories, or use a client that provides MCP roots');
    }
  };
}
