import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from './options.js';

/**
 * Checks, before anything is measured, that `path` (given to `flag`) can be written: its folder exists and
 * is writable, and it is not itself a folder. A run of several minutes must not end on a bad path.
 */
export function checkOutputPath(flag: string, path: string): void {
  const full = resolve(path);
  const folder = dirname(full);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new UsageError(`${flag} ${path}: the folder ${folder} does not exist`);
  if (existsSync(full) && statSync(full).isDirectory()) throw new UsageError(`${flag} ${path}: that is a folder; give a file name`);
  try {
    accessSync(existsSync(full) ? full : folder, constants.W_OK);
  } catch {
    throw new UsageError(`${flag} ${path}: ${existsSync(full) ? 'the file' : `the folder ${folder}`} is not writable`);
  }
}
