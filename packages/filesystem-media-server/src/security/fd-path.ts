import { readlinkSync } from 'node:fs';
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { PathChangedError } from './errors.js';

const PROC_FD = '/proc/self/fd';

/**
 * undefined until probed. MCP_FILESYSTEM_NO_PROC_FD=1 forces the portable fallback (weaker against races
 * than /proc), so the code path other platforms take can be tested on Linux too.
 */
let procFd: boolean | undefined = process.env['MCP_FILESYSTEM_NO_PROC_FD'] === '1' ? false : undefined;

/**
 * Whether /proc/self/fd works here (Linux). When it does, an open descriptor's path is asked of the kernel,
 * and children of an opened directory are reached through /proc/self/fd/N/name, which resolves through the
 * descriptor, not the path: swapping a parent directory for a symlink after it was opened changes nothing.
 */
async function hasProcFd(handle: FileHandle): Promise<boolean> {
  if (procFd === undefined) {
    try {
      procFd = (await fs.readlink(`${PROC_FD}/${handle.fd}`)).startsWith('/');
    } catch {
      procFd = false;
    }
  }
  return procFd;
}

/**
 * The real path of what `handle` refers to. On Linux the kernel's answer. Elsewhere: the real path of the
 * path it was opened by, accepted only if the entry there (lstat: a symlink swapped in does not match) is
 * the opened file (device and inode) and the real path is unchanged afterwards. A swap between open and
 * check is caught; a sequence of swaps timed exactly around these three look-ups is not (documented limit).
 */
export async function realPathOfHandle(handle: FileHandle, openedPath: string): Promise<string> {
  // Synchronous on purpose: /proc/self/fd/N is the kernel's answer from memory (no disk, no network), so
  // the call returns at once, where the promise version cost a round trip through libuv's thread pool
  // (a thread woken, the loop woken again) on every file the server opens.
  if (await hasProcFd(handle)) return readlinkSync(`${PROC_FD}/${handle.fd}`);
  const changed = () => new PathChangedError(`Access denied - ${openedPath} changed during the operation`);
  const real = await fs.realpath(openedPath);
  const [byPath, byHandle] = await Promise.all([fs.lstat(real), handle.stat()]);
  if (byPath.dev !== byHandle.dev || byPath.ino !== byHandle.ino) throw changed();
  if ((await fs.realpath(openedPath)) !== real) throw changed();
  return real;
}

/** A path through which the children of the opened directory `handle` (real path `real`) are reached. */
export async function childBase(handle: FileHandle, real: string): Promise<string> {
  return (await hasProcFd(handle)) ? `${PROC_FD}/${handle.fd}` : real;
}

/** Whether descriptor-anchored paths work on this host (false: the weaker portable fallback is in use). */
export async function descriptorPathsAvailable(): Promise<boolean> {
  const handle = await fs.open(process.cwd(), 'r');
  try {
    return await hasProcFd(handle);
  } finally {
    await handle.close();
  }
}
