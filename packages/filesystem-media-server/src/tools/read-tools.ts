import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { readHead, readTail, readWholeText } from '../text/read-text.js';
import { READ_ONLY, TEXT_OUTPUT, textResult, type ToolContext } from './context.js';

/** Files read_multiple_files keeps open at once: a long list must not exhaust file descriptors. */
const READ_CONCURRENCY = 16;

/** Maps with at most `limit` calls in flight, results in input order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Reads a text file (whole, first N or last N lines) through a verified descriptor. */
export async function readTextFile(ctx: ToolContext, requested: string, head?: number, tail?: number): Promise<string> {
  const file = await ctx.fs.openFile(await ctx.fs.resolve(requested), requested);
  try {
    // Truthiness, not presence, as in the official server: head: 0 means "whole file".
    if (head && tail) throw new Error('Cannot specify both head and tail parameters simultaneously');
    if (tail) return await readTail(file.handle, tail, requested);
    if (head) return await readHead(file.handle, head, requested);
    return await readWholeText(file.handle, requested);
  } finally {
    await file.handle.close();
  }
}

export function registerReadTools(server: McpServer, ctx: ToolContext): void {
  const inputSchema = z.object({
    path: z.string(),
    tail: z.number().optional().describe('Return only the last N lines of the file'),
    head: z.number().optional().describe('Return only the first N lines of the file'),
  });
  const handler = async ({ path, head, tail }: { path: string; head?: number; tail?: number }) => textResult(await readTextFile(ctx, path, head, tail));

  server.registerTool(
    'read_text_file',
    {
      title: 'Read Text File',
      description:
        'Read a file inside the allowed directories as UTF-8 text, whatever its extension. ' +
        "Pass 'head' for only the first N lines or 'tail' for only the last N lines (not both). " +
        'Files containing NUL bytes are refused as binary: use read_media_file for those.',
      inputSchema,
      outputSchema: TEXT_OUTPUT,
      annotations: READ_ONLY,
    },
    handler,
  );

  server.registerTool(
    'read_file',
    {
      title: 'Read File (Deprecated)',
      description: 'Read a file as text. DEPRECATED: use read_text_file, which this tool is an alias of.',
      inputSchema,
      outputSchema: TEXT_OUTPUT,
      annotations: READ_ONLY,
    },
    handler,
  );

  server.registerTool(
    'read_multiple_files',
    {
      title: 'Read Multiple Files',
      description:
        'Read several text files in one call. Each file appears under its path; a file that cannot be read ' +
        'shows its error in place and does not stop the others. Only works inside the allowed directories.',
      inputSchema: z.object({
        paths: z.array(z.string()).min(1).describe('Paths of the files to read, each inside the allowed directories'),
      }),
      outputSchema: TEXT_OUTPUT,
      annotations: READ_ONLY,
    },
    async ({ paths }) => {
      const parts = await mapLimited(paths, READ_CONCURRENCY, async (p) => {
        try {
          return `${p}:\n${await readTextFile(ctx, p)}\n`;
        } catch (error) {
          return `${p}: Error - ${error instanceof Error ? error.message : String(error)}`;
        }
      });
      return textResult(parts.join('\n---\n'));
    },
  );
}
