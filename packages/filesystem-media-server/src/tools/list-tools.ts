import fs from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import nodePath from 'node:path';
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { childPath, type OpenedDirectory } from '../security/guarded-fs.js';
import { fsCall } from '../security/fs-errors.js';
import { formatSize } from '../text/format-size.js';
import { READ_ONLY, TEXT_OUTPUT, textResult, type ToolContext } from './context.js';
import { isExcludedFromTree, matchesGlob } from './globs.js';

/** Opens the requested directory (verified), runs `use`, closes it. */
async function withDirectory<T>(ctx: ToolContext, requested: string, use: (dir: OpenedDirectory) => Promise<T>): Promise<T> {
  const dir = await ctx.fs.openDirectory(await ctx.fs.resolve(requested), requested, false, 'scandir');
  try {
    return await use(dir);
  } finally {
    await dir.handle.close();
  }
}

function readEntries(dir: OpenedDirectory): Promise<Dirent[]> {
  return fsCall('scandir', dir.display, () => fs.readdir(dir.base, { withFileTypes: true }));
}

const label = (entry: Dirent): string => (entry.isDirectory() ? '[DIR]' : '[FILE]');

export function registerListTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'list_directory',
    {
      title: 'List Directory',
      description: 'List the entries of a directory, one per line, each marked [DIR] or [FILE]. ' + 'Only works inside the allowed directories.',
      inputSchema: z.object({ path: z.string() }),
      outputSchema: TEXT_OUTPUT,
      annotations: READ_ONLY,
    },
    async ({ path }) => withDirectory(ctx, path, async (dir) => textResult((await readEntries(dir)).map((e) => `${label(e)} ${e.name}`).join('\n'))),
  );

  server.registerTool(
    'list_directory_with_sizes',
    {
      title: 'List Directory with Sizes',
      description: 'List the entries of a directory with [DIR]/[FILE] marks and file sizes, sorted by name or by size ' + '(largest first), followed by totals. Only works inside the allowed directories.',
      inputSchema: z.object({
        path: z.string(),
        sortBy: z.enum(['name', 'size']).optional().default('name').describe("Sort by 'name' or by 'size'"),
      }),
      outputSchema: TEXT_OUTPUT,
      annotations: READ_ONLY,
    },
    async ({ path, sortBy }) =>
      withDirectory(ctx, path, async (dir) => {
        const entries = await Promise.all((await readEntries(dir)).map(async (e) => ({ name: e.name, isDirectory: e.isDirectory(), size: await entrySize(ctx, dir, e) })));
        const sorted = [...entries].sort(sortBy === 'size' ? (a, b) => b.size - a.size : (a, b) => a.name.localeCompare(b.name));
        const files = entries.filter((e) => !e.isDirectory);
        const lines = sorted.map((e) => `${e.isDirectory ? '[DIR]' : '[FILE]'} ${e.name.padEnd(30)} ${e.isDirectory ? '' : formatSize(e.size).padStart(10)}`);
        lines.push('', `Total: ${files.length} files, ${entries.length - files.length} directories`);
        lines.push(`Combined size: ${formatSize(files.reduce((sum, e) => sum + e.size, 0))}`);
        return textResult(lines.join('\n'));
      }),
  );

  server.registerTool(
    'directory_tree',
    {
      title: 'Directory Tree',
      description:
        "A recursive tree of a directory as JSON (2-space indented): each entry has 'name' and 'type' " +
        "('file' or 'directory'); directories also have 'children' (possibly empty). Entries matching " +
        'excludePatterns (globs, relative to the path) are left out. Only works inside the allowed directories.',
      inputSchema: z.object({ path: z.string(), excludePatterns: z.array(z.string()).optional().default([]) }),
      outputSchema: TEXT_OUTPUT,
      annotations: READ_ONLY,
    },
    async ({ path, excludePatterns }) => {
      const tree = await withDirectory(ctx, path, (dir) => buildTree(ctx, dir, '', path, excludePatterns));
      return textResult(JSON.stringify(tree, null, 2));
    },
  );

  server.registerTool(
    'search_files',
    {
      title: 'Search Files',
      description:
        "Find files and directories below a path whose path relative to it matches a glob ('*.ts' at the " +
        "top level, '**/*.ts' at any depth), skipping excludePatterns. Returns full paths, one per line. " +
        'Symbolic links leading outside the allowed directories are skipped. Only searches the allowed directories.',
      inputSchema: z.object({ path: z.string(), pattern: z.string(), excludePatterns: z.array(z.string()).optional().default([]) }),
      outputSchema: TEXT_OUTPUT,
      annotations: READ_ONLY,
    },
    async ({ path, pattern, excludePatterns }) => {
      const found = await withDirectory(ctx, path, async (dir) => {
        const results: string[] = [];
        await search(ctx, dir, '', { pattern, excludePatterns, results });
        return results;
      });
      return textResult(found.length > 0 ? found.join('\n') : 'No matches found');
    },
  );
}

/** A listed entry's size: symlinks count only when they lead inside (0 otherwise, without revealing more). */
async function entrySize(ctx: ToolContext, dir: OpenedDirectory, entry: Dirent): Promise<number> {
  try {
    if (entry.isSymbolicLink()) {
      const target = await ctx.fs.symlinkTargetInside(dir, entry.name);
      return target ? (await fs.stat(target)).size : 0;
    }
    return (await fs.lstat(childPath(dir, entry.name))).size;
  } catch {
    return 0;
  }
}

interface TreeEntry {
  name: string;
  type: 'file' | 'directory';
  children?: TreeEntry[];
}

async function buildTree(ctx: ToolContext, dir: OpenedDirectory, relative: string, display: string, excludes: readonly string[]): Promise<TreeEntry[]> {
  const result: TreeEntry[] = [];
  for (const entry of await readEntries(dir)) {
    const entryRelative = relative ? `${relative}${nodePath.sep}${entry.name}` : entry.name;
    if (isExcludedFromTree(entryRelative, excludes)) continue;
    if (!entry.isDirectory()) {
      result.push({ name: entry.name, type: 'file' });
      continue;
    }
    const entryDisplay = nodePath.join(display, entry.name);
    const child = await ctx.fs.openChildDirectory(dir, entry.name, entryDisplay);
    try {
      result.push({ name: entry.name, type: 'directory', children: await buildTree(ctx, child, entryRelative, entryDisplay, excludes) });
    } finally {
      await child.handle.close();
    }
  }
  return result;
}

interface SearchState {
  readonly pattern: string;
  readonly excludePatterns: readonly string[];
  readonly results: string[];
}

async function search(ctx: ToolContext, dir: OpenedDirectory, relative: string, state: SearchState): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readEntries(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry.isSymbolicLink() && !(await ctx.fs.symlinkTargetInside(dir, entry.name))) continue;
    const entryRelative = relative ? `${relative}${nodePath.sep}${entry.name}` : entry.name;
    if (state.excludePatterns.some((p) => matchesGlob(entryRelative, p))) continue;
    if (matchesGlob(entryRelative, state.pattern)) state.results.push(nodePath.join(dir.real, entry.name));
    if (!entry.isDirectory()) continue;
    let child: OpenedDirectory;
    try {
      child = await ctx.fs.openChildDirectory(dir, entry.name, nodePath.join(dir.real, entry.name));
    } catch {
      continue;
    }
    try {
      await search(ctx, child, entryRelative, state);
    } finally {
      await child.handle.close();
    }
  }
}
