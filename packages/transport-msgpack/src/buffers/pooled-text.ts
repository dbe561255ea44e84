import { giveBack } from './lent-bytes.js';
import { NativeBytesPool } from './pool.js';
import { runtime } from '../runtime/current.js';
import { Buffer } from '../runtime/buffer.js';

/** Texts shorter than this in UTF-8 are written as strings: the copy is cheap, the pool not worth it. */
export const POOLED_TEXT_BYTES = 64 * 1024;

const textBytes = new NativeBytesPool({ maxRetainedBytes: 16 * 1024 * 1024, minPooledBytes: POOLED_TEXT_BYTES });
const utf8 = new TextEncoder();

/**
 * The UTF-8 bytes of a large JSON reply over HTTP, in a buffer lent from a pool (the node adapter gives it
 * back once the socket has the bytes), or undefined for a small one. Written as a string, node:http first
 * joins the head and the text into a new string, then encodes that into a fresh buffer: for a 1 MB reply
 * a 1 MB copy and a fresh 1 MB allocation (page faults, GC pressure) on every call. The A/B of the same
 * server with and without it is in the package README ("Measured (HTTP)"); `npx mcp-msgpack-bench --scenario
 * object --transport http` measures this path. Not used for stdio, where the same A/B showed no gain (a
 * JSON line is written as a string there).
 *
 * The buffer comes back only through this package's writers on an OS handle (writesCopyOut); bytes read
 * by anything else are garbage-collected as any fresh buffer would be. `byteLength`, when the caller knows
 * it already, saves a pass over the text.
 */
export function pooledUtf8(text: string, byteLength?: number): Uint8Array | undefined {
  // A pooled buffer comes back only from writers that report the kernel has its bytes.
  if (!runtime.writersGiveBackLentBytes || text.length * 3 < POOLED_TEXT_BYTES) return undefined; // at most 3 bytes per UTF-16 unit
  const length = byteLength ?? Buffer.byteLength(text, 'utf8');
  if (length < POOLED_TEXT_BYTES) return undefined;
  const bytes = textBytes.acquire(length);
  // Whole text, exactly filling the buffer: a byteLength too small would stop encodeInto early, one too large
  // would leave bytes unwritten.
  const { read, written } = utf8.encodeInto(text, bytes);
  if (read === text.length && written === length) return bytes;
  textBytes.release(bytes); // a byteLength that does not match the text: leave it to the caller's string path
  return undefined;
}

/**
 * The UTF-8 bytes of a text for a reader that is done with them once it returns or resolves (a content
 * coder): one pass over the text, encoded into a pooled buffer of the text's largest UTF-8 size (3 bytes per
 * UTF-16 unit), so no pass to measure it first and no fresh allocation per reply. `bytes` is the written
 * part; `giveBack()` returns the buffer to the pool once the reader is done (never before). A text under
 * the pool's threshold is encoded into a fresh buffer, which `giveBack()` leaves to the garbage collector.
 */
export function utf8ForReader(text: string): { bytes: Uint8Array; giveBack(): void } {
  if (text.length * 3 < POOLED_TEXT_BYTES) return { bytes: Buffer.from(text, 'utf8'), giveBack: () => {} };
  const lent = textBytes.acquire(text.length * 3);
  const { written } = utf8.encodeInto(text, lent);
  return { bytes: lent.subarray(0, written), giveBack: () => giveBack(lent) };
}

/** Drops the pool's free buffers now (a server idle for long lets them go; see McpHttpHandler's idleRelease). */
export function dropPooledTextBuffers(): void {
  textBytes.dropFree();
}
