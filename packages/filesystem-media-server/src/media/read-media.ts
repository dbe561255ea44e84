import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolContext } from '../tools/context.js';
import { formatMiB } from './limits.js';
import type { MediaPayload } from './media-content.js';
import { mediaTypeOf } from './mime.js';

export interface MediaFile extends MediaPayload {
  readonly real: string;
  readonly size: number;
}

function overLimit(display: string, size: number, limit: number): Error {
  return new Error(
    `${display} is ${formatMiB(size)} (${size} bytes), over this server's media limit of ${formatMiB(limit)} (${limit} bytes); ` +
      'the limit is set with --max-media-bytes',
  );
}

/** Describes a media file without reading it (verified open + fstat): for resource links. */
export async function statMediaFile(ctx: ToolContext, requested: string): Promise<Omit<MediaFile, 'bytes'>> {
  const file = await ctx.fs.openFile(await ctx.fs.resolve(requested), requested);
  await file.handle.close();
  return describe(file.real, file.stats.size, requested);
}

/**
 * Reads a media file fresh (no cache: the file may change between calls), refusing it before reading when
 * it is over the limit, and again if it grew past the limit while being read.
 */
export async function readMediaFile(ctx: ToolContext, requested: string): Promise<MediaFile> {
  const file = await ctx.fs.openFile(await ctx.fs.resolve(requested), requested);
  try {
    if (file.stats.size > ctx.maxMediaBytes) throw overLimit(requested, file.stats.size, ctx.maxMediaBytes);
    const bytes = await file.handle.readFile();
    if (bytes.byteLength > ctx.maxMediaBytes) throw overLimit(requested, bytes.byteLength, ctx.maxMediaBytes);
    return { ...describe(file.real, bytes.byteLength, requested), bytes };
  } finally {
    await file.handle.close();
  }
}

function describe(real: string, size: number, display: string): Omit<MediaFile, 'bytes'> {
  // The media type follows the real file's extension, as the official server's does.
  return { real, size, display, mimeType: mediaTypeOf(real), uri: pathToFileURL(real).href };
}

export function fileNameOf(real: string): string {
  return path.basename(real);
}
