import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { READ_ONLY, TEXT_OUTPUT, textResult, type ToolContext } from './context.js';
import type { GuardedFs } from '../security/guarded-fs.js';
import { describeFsError, errorCode } from '../security/fs-errors.js';
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Metadata of a path. Opened and verified like a read; a file we may not open (no read permission) is
 * looked at through its verified parent instead, and a symlink there is refused rather than followed.
 */
async function statInside(guarded: GuardedFs, requested: string): Promise<Stats> {
  const absolute = await guarded.resolve(requested);
  try {
    const entry = await guarded.open(absolute, requested);
    await entry.handle.close();
    return entry.stats;
  } catch (error) {
    if (errorCode(error) !== 'EACCES' || guarded.allowed.isRoot(absolute)) throw describeFsError(error, 'stat', requested);
  }
  const parent = await guarded.openDirectory(path.dirname(absolute), requested);
  try {
    const stats = await fs.lstat(`${parent.base}/${path.basename(absolute)}`);
    if (stats.isSymbolicLink()) throw new Error(`EACCES: permission denied, stat '${requested}'`);
    return stats;
  } finally {
    await parent.handle.close();
  }
}

export function registerInfoTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'get_file_info',
    {
      title: 'Get File Info',
      description:
        'Metadata of a file or directory without reading it: size, creation, modification and access times, ' +
        'whether it is a file or a directory, and permission bits. Only works inside the allowed directories.',
      inputSchema: z.object({ path: z.string() }),
      outputSchema: TEXT_OUTPUT,
      annotations: READ_ONLY,
    },
    async ({ path: requested }) => {
      const stats = await statInside(ctx.fs, requested);
      const info: Record<string, unknown> = {
        size: stats.size,
        created: stats.birthtime,
        modified: stats.mtime,
        accessed: stats.atime,
        isDirectory: stats.isDirectory(),
        isFile: stats.isFile(),
        permissions: stats.mode.toString(8).slice(-3),
      };
      return textResult(
        Object.entries(info)
          .map(([key, value]) => `${key}: ${String(value)}`)
          .join('\n'),
      );
    },
  );

  server.registerTool(
    'list_allowed_directories',
    {
      title: 'List Allowed Directories',
      description: 'The directories this server may access (everything below them is accessible too). Call it first to ' + 'know which paths will be accepted.',
      inputSchema: z.object({}),
      outputSchema: TEXT_OUTPUT,
      annotations: READ_ONLY,
    },
    async () => {
      await ctx.allowed.settled();
      return textResult(`Allowed directories:\n${ctx.allowed.displayList().join('\n')}`);
    },
  );
}
