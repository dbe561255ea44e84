import path from 'node:path';
import type { FileHandle } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { NativeBytesPool } from 'mcp-msgpack-transport';
import type { GuardedFs } from '../security/guarded-fs.js';
import { formatMiB } from './limits.js';
import { mediaTypeOf } from './mime.js';

/** What reading a media file needs (the tools' context has it): the guarded file system and the size limit. */
export interface MediaReadContext {
  readonly fs: GuardedFs;
  readonly maxMediaBytes: number;
}

/** What a media tool needs of a file it read: its bytes, type and names (the reply is built from it). */
export interface MediaPayload {
  readonly bytes: Uint8Array;
  readonly mimeType: string;
  readonly uri: string;
  readonly display: string;
}

export interface MediaFile extends MediaPayload {
  readonly real: string;
  readonly size: number;
}

function overLimit(display: string, size: number, limit: number): Error {
  return new Error(`${display} is ${formatMiB(size)} (${size} bytes), over this server's media limit of ${formatMiB(limit)} (${limit} bytes); ` + 'the limit is set with --max-media-bytes');
}

/** Describes a media file without reading it (verified open + fstat): for resource links. */
export async function statMediaFile(ctx: MediaReadContext, requested: string): Promise<Omit<MediaFile, 'bytes'>> {
  const file = await ctx.fs.openFile(await ctx.fs.resolve(requested), requested);
  await file.handle.close();
  return describe(file.real, file.stats.size, requested);
}

/**
 * Reads a media file fresh (no cache: the file may change between calls), refusing it before reading when
 * it is over the limit, and again if it grew past the limit while being read.
 */
export async function readMediaFile(ctx: MediaReadContext, requested: string): Promise<MediaFile> {
  const file = await ctx.fs.openFile(await ctx.fs.resolve(requested), requested);
  try {
    if (file.stats.size > ctx.maxMediaBytes) throw overLimit(requested, file.stats.size, ctx.maxMediaBytes);
    const bytes = (await readWholeInto(file.handle, file.stats.size)) ?? (await file.handle.readFile());
    if (bytes.byteLength > ctx.maxMediaBytes) throw overLimit(requested, bytes.byteLength, ctx.maxMediaBytes);
    return { ...describe(file.real, bytes.byteLength, requested), bytes };
  } finally {
    await file.handle.close();
  }
}

/**
 * Media buffers are reused from call to call: the transport gives each back once its bytes are written
 * (or encoded as base64), so reading a 5 MiB file costs no fresh 5 MiB allocation, and no garbage to
 * collect, per call. Callers that do not send the bytes as native bytes give them back with releaseMedia().
 */
const mediaPool = new NativeBytesPool();

export function releaseMedia(bytes: Uint8Array): void {
  mediaPool.release(bytes);
}

/**
 * Reads a file of `size` bytes (as fstat said) into a pooled buffer, in as few reads as the kernel allows.
 * Undefined when the file changed size meanwhile: the caller then reads it as it is now.
 *
 * The first read asks for one byte more than fstat said, into GROWTH_PROBE (one preadv): a regular file
 * answers short only at its end, so exactly `size` bytes means the file ends there, and one more means it
 * grew. The common case is then one round trip through libuv's thread pool, not two (a read, then a probe).
 */
async function readWholeInto(handle: FileHandle, size: number): Promise<Buffer | undefined> {
  const bytes = mediaPool.acquire(size);
  try {
    let filled = (await handle.readv([bytes, GROWTH_PROBE], 0)).bytesRead;
    if (filled === size) return bytes;
    while (filled < size) {
      const { bytesRead } = await handle.read(bytes, filled, size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled === size && (await handle.read(GROWTH_PROBE, 0, 1, size)).bytesRead === 0) return bytes;
  } catch (error) {
    mediaPool.release(bytes);
    throw error;
  }
  mediaPool.release(bytes);
  return undefined;
}

/** One byte read past the expected end tells whether the file grew while it was read. */
const GROWTH_PROBE = Buffer.alloc(1);

function describe(real: string, size: number, display: string): Omit<MediaFile, 'bytes'> {
  // The media type follows the real file's extension, as the official server's does.
  return { real, size, display, mimeType: mediaTypeOf(real), uri: pathToFileURL(real).href };
}

export function fileNameOf(real: string): string {
  return path.basename(real);
}
