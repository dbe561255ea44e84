import { fileURLToPath } from 'node:url';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import type { ReadResourceResult } from '@modelcontextprotocol/server';
import { blobResourceContents } from './media/media-content.js';
import { FALLBACK_MEDIA_TYPE } from './media/mime.js';
import { readMediaFile, releaseMedia } from './media/read-media.js';
import type { ToolContext } from './tools/context.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Strict text test for resources: valid UTF-8 without NUL bytes; anything else is served as a blob. */
function asText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Files inside the allowed directories as resources: file:///absolute/path URIs (what read_media_file's
 * resource links point to). Known media types and undecodable files come back as a blob, UTF-8 text as
 * text. Not listed (a directory tree can be huge): clients read them by URI.
 */
export function registerFileResources(server: McpServer, ctx: ToolContext): void {
  server.registerResource(
    'file',
    new ResourceTemplate('file://{+path}', { list: undefined }),
    {
      title: 'File',
      description: 'A file inside the allowed directories, by file:// URI. Subject to the media size limit.',
    },
    async (uri: URL): Promise<ReadResourceResult> => {
      // fileURLToPath decodes escapes and refuses encoded separators and remote hosts.
      const requested = fileURLToPath(uri);
      const file = await readMediaFile(ctx, requested);
      if (file.mimeType === FALLBACK_MEDIA_TYPE) {
        const text = asText(file.bytes);
        if (text !== undefined) {
          releaseMedia(file.bytes);
          return { contents: [{ uri: file.uri, mimeType: 'text/plain', text }] };
        }
      }
      return { contents: [blobResourceContents(file, ctx.media)] };
    },
  );
}
