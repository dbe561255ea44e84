import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { mediaContentBlock } from '../media/media-content.js';
import { fileNameOf, readMediaFile, statMediaFile } from '../media/read-media.js';
import { READ_ONLY, type ToolContext } from './context.js';

export function registerMediaTool(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'read_media_file',
    {
      title: 'Read Media File',
      description:
        'Read a file as media: images and audio come back as image/audio content, any other file as an ' +
        'embedded blob resource, with the MIME type taken from the extension. The bytes travel as native ' +
        "MessagePack bytes when the client negotiated them, base64 otherwise. With as: 'resource_link' the " +
        'answer is a link (a file:// URI readable with resources/read) instead of the bytes. ' +
        'structuredContent holds metadata only (path, uri, mimeType, size), never the bytes a second time. ' +
        'Only works inside the allowed directories.',
      inputSchema: z.object({
        path: z.string(),
        as: z.enum(['inline', 'resource_link']).optional().describe("'inline' (default): the media in the result; 'resource_link': a link to read with resources/read"),
      }),
      outputSchema: z.object({ path: z.string(), uri: z.string(), mimeType: z.string(), size: z.number() }),
      annotations: READ_ONLY,
    },
    async ({ path, as }) => {
      if (as === 'resource_link') {
        const file = await statMediaFile(ctx, path);
        return {
          content: [{ type: 'resource_link' as const, uri: file.uri, name: fileNameOf(file.real), mimeType: file.mimeType, size: file.size }],
          structuredContent: { path: file.real, uri: file.uri, mimeType: file.mimeType, size: file.size },
        };
      }
      const file = await readMediaFile(ctx, path);
      return {
        content: [mediaContentBlock(file, ctx.media)],
        structuredContent: { path: file.real, uri: file.uri, mimeType: file.mimeType, size: file.size },
      };
    },
  );
}
