import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { applyEdits, fencedDiff } from '../text/edits.js';
import { readWholeText } from '../text/read-text.js';
import { TEXT_OUTPUT, textResult, type ToolContext } from './context.js';

export function registerWriteTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'write_file',
    {
      title: 'Write File',
      description:
        'Create a file, or replace an existing one entirely, with the given text (UTF-8). Existing files are ' +
        'overwritten without warning. The write is atomic: readers see the old or the new file, never a part. ' +
        'Only works inside the allowed directories.',
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      outputSchema: TEXT_OUTPUT,
      annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: true, openWorldHint: false },
    },
    async ({ path, content }) => {
      await ctx.fs.writeFileAtomic(await ctx.fs.resolve(path), path, content);
      return textResult(`Successfully wrote to ${path}`);
    },
  );

  server.registerTool(
    'edit_file',
    {
      title: 'Edit File',
      description:
        'Edit a text file by replacing text: each edit replaces the first exact occurrence of oldText (or, ' +
        'failing that, lines equal to it apart from indentation) with newText. Returns a git-style unified ' +
        'diff of the change; with dryRun the file is left untouched. Only works inside the allowed directories.',
      inputSchema: z.object({
        path: z.string(),
        edits: z.array(
          z.object({
            oldText: z.string().describe('Text to find; must match exactly'),
            newText: z.string().describe('Text to put in its place'),
          }),
        ),
        dryRun: z.boolean().default(false).describe('Only show the diff, do not change the file'),
      }),
      outputSchema: TEXT_OUTPUT,
      annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: true, openWorldHint: false },
    },
    async ({ path, edits, dryRun }) => {
      const absolute = await ctx.fs.resolve(path);
      const file = await ctx.fs.openFile(absolute, path);
      let before: string;
      try {
        before = await readWholeText(file.handle, path);
      } finally {
        await file.handle.close();
      }
      const after = applyEdits(before, edits);
      const diff = fencedDiff(before, after, file.real);
      if (!dryRun) await ctx.fs.writeFileAtomic(file.real, path, after);
      return textResult(diff);
    },
  );

  server.registerTool(
    'create_directory',
    {
      title: 'Create Directory',
      description: 'Create a directory, with any missing parents; succeeds quietly when it already exists. ' + 'Only works inside the allowed directories.',
      inputSchema: z.object({ path: z.string() }),
      outputSchema: TEXT_OUTPUT,
      annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false, openWorldHint: false },
    },
    async ({ path }) => {
      await ctx.fs.createDirectories(await ctx.fs.resolve(path), path);
      return textResult(`Successfully created directory ${path}`);
    },
  );

  server.registerTool(
    'move_file',
    {
      title: 'Move File',
      description:
        'Move or rename a file or directory. Fails when the destination already exists. A symbolic link is ' + 'moved as the link itself. Source and destination must both be inside the allowed directories.',
      inputSchema: z.object({ source: z.string(), destination: z.string() }),
      outputSchema: TEXT_OUTPUT,
      annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: true, openWorldHint: false },
    },
    async ({ source, destination }) => {
      await ctx.fs.move(await ctx.fs.resolve(source), source, await ctx.fs.resolve(destination), destination);
      return textResult(`Successfully moved ${source} to ${destination}`);
    },
  );
}
