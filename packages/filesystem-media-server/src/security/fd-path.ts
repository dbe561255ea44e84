import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { PathChangedError } from './errors.js';

const PROC_FD = '/proc/self/fd';

let procFd: boolean | undefined;

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
 * The real path of what `handle` refers to. On Linux the kernel's answer; elsewhere the real path of the
 * path it was opened by, accepted only if it is still the same file (device and inode), so a swap between
 * the open and this check is caught, though a swap and swap back in that window is not (documented limit).
 */
export async function realPathOfHandle(handle: FileHandle, openedPath: string): Promise<string> {
  if (await hasProcFd(handle)) return fs.readlink(`${PROC_FD}/${handle.fd}`);
  const real = await fs.realpath(openedPath);
  const [byPath, byHandle] = await Promise.all([fs.stat(real), handle.stat()]);
  if (byPath.dev !== byHandle.dev || byPath.ino !== byHandle.ino) {
    throw new PathChangedError(`Access denied - ${openedPath} changed during the operation`);
  }
  return real;
}

/** A path through which the children of the opened directory `handle` (real path `real`) are reached. */
export async function childBase(handle: FileHandle, real: string): Promise<string> {
  return (await hasProcFd(handle)) ? `${PROC_FD}/${handle.fd}` : real;
}
