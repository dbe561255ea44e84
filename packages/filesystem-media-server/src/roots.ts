import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/server';
import { SdkError, SdkErrorCode, type Root } from '@modelcontextprotocol/server';
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
 * On MCP 2026-07-28 there is no initialize (oninitialized never runs) and no session to keep roots in: such
 * clients work within the command-line directories (README, "SDK versions").
 */
export function installRootsHandling(server: McpServer, allowed: AllowedDirectories, log: (message: string) => void): void {
  const refresh = async (): Promise<void> => {
    const { roots } = await listRootsPatiently(server);
    const dirs = await directoriesFromRoots(roots, log);
    if (dirs.length === 0) {
      log('No valid root directories provided by client; keeping the current allowed directories');
      return;
    }
    allowed.replace(dirs);
    log(`Updated allowed directories from MCP roots: ${dirs.length} valid directories`);
  };

  // Path checks wait for a fetch in progress (AllowedDirectories.track), so no call runs on a stale list.
  server.server.setNotificationHandler('notifications/roots/list_changed', async () => {
    const update = refresh().catch((error: unknown) => log(`Failed to request roots from client: ${String(error)}`));
    allowed.track(update);
    await update;
  });

  server.server.oninitialized = () => {
    if (server.server.getClientCapabilities()?.roots) {
      allowed.track(refresh().catch((error: unknown) => log(`Failed to request initial roots from client: ${String(error)}`)));
    } else if (allowed.size === 0) {
      log('No allowed directories: start the server with directories, or use a client that provides MCP roots');
    }
  };
}

/**
 * Timeouts of successive roots/list attempts. Over Streamable HTTP a request sent right after initialize
 * can find no stream open to carry it (the client opens its GET stream only after `initialized` is
 * accepted) and is lost; asking again shortly after gets through. Stdio clients answer the first.
 */
const ROOTS_ATTEMPT_TIMEOUTS_MS = [1000, 5000, 15000];

async function listRootsPatiently(server: McpServer): Promise<{ roots: Root[] }> {
  let lastError: unknown;
  for (const timeout of ROOTS_ATTEMPT_TIMEOUTS_MS) {
    try {
      return await server.server.listRoots(undefined, { timeout });
    } catch (error) {
      lastError = error;
      // Only a timeout is worth another try; a refusal from the client is its answer.
      if (!(error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)) break;
    }
  }
  throw lastError;
}
