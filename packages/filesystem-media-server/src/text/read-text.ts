import type { FileHandle } from 'node:fs/promises';

const CHUNK_BYTES = 64 * 1024;
/** How far into a file to look for a NUL byte when deciding it is binary (git looks at the first 8000). */
const BINARY_SNIFF_BYTES = 8000;
const NEWLINE = 0x0a;

/**
 * Text files are decoded as UTF-8 (invalid sequences become U+FFFD, as in the official server). A file with
 * a NUL byte near its start is refused as binary instead of being returned as garbage: read_media_file is
 * the tool for those.
 */
export function decodeText(bytes: Uint8Array, display: string): string {
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
    throw new Error(`${display} looks like a binary file (it contains NUL bytes); use read_media_file to read it`);
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

export async function readWholeText(handle: FileHandle, display: string): Promise<string> {
  return decodeText(await handle.readFile(), display);
}

/** The first `lines` lines, split on `\n` as the official server does (a final partial line counts). */
export async function readHead(handle: FileHandle, lines: number, display: string): Promise<string> {
  const chunks: Buffer[] = [];
  let newlines = 0;
  let position = 0;
  while (newlines < lines) {
    const chunk = Buffer.alloc(CHUNK_BYTES);
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const data = chunk.subarray(0, bytesRead);
    chunks.push(data);
    newlines += countNewlines(data);
  }
  const parts = decodeText(Buffer.concat(chunks), display).split('\n');
  const partial = parts.pop()!;
  const head = parts.slice(0, Math.max(0, lines));
  if (head.length < lines && partial.length > 0) head.push(partial);
  return head.join('\n');
}

/** The last `lines` lines, CRLF normalised, reading backwards only as far as needed. */
export async function readTail(handle: FileHandle, lines: number, display: string): Promise<string> {
  const size = (await handle.stat()).size;
  const chunks: Buffer[] = [];
  let newlines = 0;
  let position = size;
  while (position > 0 && newlines < lines) {
    const length = Math.min(CHUNK_BYTES, position);
    position -= length;
    const chunk = Buffer.alloc(length);
    const { bytesRead } = await handle.read(chunk, 0, length, position);
    if (bytesRead === 0) break;
    const data = chunk.subarray(0, bytesRead);
    chunks.unshift(data);
    newlines += countNewlines(data);
  }
  if (chunks.length === 0) return '';
  const text = decodeText(Buffer.concat(chunks), display).replace(/\r\n/g, '\n');
  return text.split('\n').slice(-lines).join('\n');
}

function countNewlines(data: Uint8Array): number {
  let count = 0;
  for (let i = data.indexOf(NEWLINE); i !== -1; i = data.indexOf(NEWLINE, i + 1)) count++;
  return count;
}
