import { randomBytes } from 'node:crypto';
import { constants as FS, type Stats } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { AllowedDirectories } from './allowed-directories.js';
import { AccessDeniedError, PathChangedError } from './errors.js';
import { childBase, realPathOfHandle } from './fd-path.js';
import { describeFsError, errorCode, fsCall } from './fs-errors.js';
import { isInsideDirectory } from './path-inside.js';
import { resolveRequestPath } from './request-path.js';

/** A file or directory opened and verified to lie inside the allowed directories. */
export interface OpenedEntry {
  readonly handle: FileHandle;
  /** Its real path, as verified. */
  readonly real: string;
  readonly stats: Stats;
  /** The path the client asked for, for messages. */
  readonly display: string;
}

/** An opened, verified directory, with the base path its children are reached through. */
export interface OpenedDirectory extends OpenedEntry {
  readonly base: string;
}

// O_NONBLOCK: opening a FIFO must not hang the server; it is then refused as not a regular file.
const READ_FLAGS = FS.O_RDONLY | FS.O_NONBLOCK;
const DIR_FLAGS = FS.O_RDONLY | FS.O_DIRECTORY;
const TEMP_FLAGS = FS.O_WRONLY | FS.O_CREAT | FS.O_EXCL | FS.O_NOFOLLOW;

/**
 * Every file-system access of the server goes through here. The rule: check the request lexically, open,
 * then verify what was actually opened (its real path, from the descriptor) before using it. Later steps
 * work through the opened descriptor (children of an opened directory via /proc/self/fd/N/name), so a path
 * swapped for a symlink between check and use cannot redirect them outside.
 */
export class GuardedFs {
  constructor(readonly allowed: AllowedDirectories) {}

  /**
   * The request string as an absolute path inside an allowed directory (lexical check only), against the
   * allowed list as it stands once any roots update in progress has settled.
   */
  async resolve(requested: string): Promise<string> {
    await this.allowed.settled();
    return resolveRequestPath(requested, this.allowed);
  }

  /** Opens `absolute` (following symlinks) and verifies the result is inside; the caller closes it. */
  async open(absolute: string, display: string, flags = READ_FLAGS, operation = 'open'): Promise<OpenedEntry> {
    const handle = await fsCall(operation, display, () => fs.open(absolute, flags));
    return this.verify(handle, absolute, display);
  }

  /** Opens a regular file for reading. */
  async openFile(absolute: string, display: string): Promise<OpenedEntry> {
    const entry = await this.open(absolute, display);
    if (!entry.stats.isFile()) {
      await entry.handle.close();
      throw new Error(entry.stats.isDirectory() ? await directoryReadMessage(entry.real) : `Not a regular file: ${display}`);
    }
    return entry;
  }

  /** Opens a directory; `operation` names the failing call in errors ('scandir' for listings, as node does). */
  async openDirectory(absolute: string, display: string, noFollow = false, operation = 'open'): Promise<OpenedDirectory> {
    let entry: OpenedEntry;
    try {
      entry = await this.open(absolute, display, DIR_FLAGS | (noFollow ? FS.O_NOFOLLOW : 0), operation);
    } catch (error) {
      if (noFollow && errorCode(error) === 'ELOOP') throw new PathChangedError(`Access denied - ${display} became a symbolic link during the operation`);
      throw error;
    }
    return { ...entry, base: await childBase(entry.handle, entry.real) };
  }

  /** Opens a subdirectory found by readdir, refusing it if it has meanwhile become a symlink. */
  openChildDirectory(parent: OpenedDirectory, name: string, display: string): Promise<OpenedDirectory> {
    return this.openDirectory(childPath(parent, name), display, true);
  }

  /** The real path a child symlink points to, or undefined when that is missing or outside. */
  async symlinkTargetInside(parent: OpenedDirectory, name: string): Promise<string | undefined> {
    try {
      const real = await fs.realpath(childPath(parent, name));
      return this.allowed.containsReal(real) ? real : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Replaces (or creates) a file atomically: a temporary file in the same directory, then rename. The final
   * component is never written through: an existing symlink is resolved and, if its target is inside, the
   * target is replaced instead (as the official server does); a failed write removes the temporary file.
   */
  async writeFileAtomic(absolute: string, display: string, data: string | Uint8Array, viaSymlink = false): Promise<string> {
    const { dir, name } = await this.openParent(absolute, display);
    let tempPath: string | undefined;
    try {
      const target = childPath(dir, name);
      const existing = await lstatOrUndefined(target);
      if (existing?.isSymbolicLink()) {
        if (viaSymlink) throw new PathChangedError(`Access denied - ${display} changed during the write`);
        const real = await this.symlinkTargetInside(dir, name);
        if (!real) throw new AccessDeniedError(`Access denied - ${display} is a symbolic link to a missing target or outside the allowed directories`);
        return await this.writeFileAtomic(real, display, data, true);
      }
      if (existing?.isDirectory()) throw new Error(`EISDIR: illegal operation on a directory, write '${display}'`);
      if (existing && !existing.isFile()) throw new Error(`Not a regular file: ${display}`);
      const mode = existing ? existing.mode & 0o7777 : 0o666;
      tempPath = childPath(dir, `.${name.slice(0, 32)}.${randomBytes(8).toString('hex')}.tmp`);
      const temp = await fsCall('open', display, () => fs.open(tempPath!, TEMP_FLAGS, mode));
      try {
        await fsCall('write', display, () => temp.writeFile(data));
        // Keep the replaced file's permission bits exactly (the creation mode went through the umask).
        if (existing) await temp.chmod(mode);
      } finally {
        await temp.close();
      }
      await this.reverify(dir);
      await fsCall('rename', display, () => fs.rename(tempPath!, target));
      tempPath = undefined;
      return path.join(dir.real, name);
    } finally {
      if (tempPath) await fs.unlink(tempPath).catch(() => {});
      await dir.handle.close();
    }
  }

  /** mkdir -p, one component at a time, each created and entered through the verified parent. */
  async createDirectories(absolute: string, display: string): Promise<void> {
    const root = this.allowed
      .snapshot()
      .flatMap((d) => [d.given, d.real])
      .filter((d) => isInsideDirectory(absolute, d))
      .sort((a, b) => b.length - a.length)[0];
    if (!root) throw new AccessDeniedError(`Access denied - path outside allowed directories: ${absolute}`);
    let current = await this.openDirectory(root, root);
    try {
      for (const part of path.relative(root, absolute).split(path.sep).filter(Boolean)) {
        const next = childPath(current, part);
        await fsCall('mkdir', display, () => fs.mkdir(next)).catch((error: unknown) => {
          if (errorCode(error) !== 'EEXIST') throw error;
        });
        const opened = await this.openDirectory(next, display).catch((error: unknown) => {
          throw errorCode(error) === 'ENOTDIR' ? new Error(`EEXIST: file already exists and is not a directory, mkdir '${display}'`) : error;
        });
        await current.handle.close();
        current = opened;
      }
    } finally {
      await current.handle.close();
    }
  }

  /** Renames within the allowed directories; both parents are opened and verified; never overwrites. */
  async move(sourceAbsolute: string, sourceDisplay: string, destinationAbsolute: string, destinationDisplay: string): Promise<void> {
    const source = await this.openParent(sourceAbsolute, sourceDisplay);
    try {
      const destination = await this.openParent(destinationAbsolute, destinationDisplay);
      try {
        const from = childPath(source.dir, source.name);
        const to = childPath(destination.dir, destination.name);
        // Named like node's rename error (`rename 'src' -> 'dst'`), as the official server reports it.
        const renameDisplay = `${sourceDisplay}' -> '${destinationDisplay}`;
        const moved = await fsCall('rename', renameDisplay, () => fs.lstat(from));
        // A link is moved as the link; one leading outside (or nowhere) is refused, as a read of it would be.
        if (moved.isSymbolicLink() && !(await this.symlinkTargetInside(source.dir, source.name))) {
          throw new AccessDeniedError(`Access denied - ${sourceDisplay} is a symbolic link to a missing target or outside the allowed directories`);
        }
        if (await lstatOrUndefined(to)) throw new Error(`Destination already exists: ${destinationDisplay}`);
        await this.reverify(source.dir);
        await this.reverify(destination.dir);
        await fsCall('rename', renameDisplay, () => fs.rename(from, to));
      } finally {
        await destination.dir.handle.close();
      }
    } finally {
      await source.dir.handle.close();
    }
  }

  private async openParent(absolute: string, display: string): Promise<{ dir: OpenedDirectory; name: string }> {
    const parent = path.dirname(absolute);
    const name = path.basename(absolute);
    if (parent === absolute || this.allowed.isRoot(absolute) || !this.allowed.containsLexically(parent)) {
      throw new AccessDeniedError(`Access denied - an allowed directory itself cannot be replaced, moved or written: ${display}`);
    }
    try {
      return { dir: await this.openDirectory(parent, display), name };
    } catch (error) {
      // The official server's wording: the missing parent surfaces as the file's open failing.
      if (errorCode(error) === 'ENOENT') throw describeFsError(error, 'open', display);
      throw error;
    }
  }

  /** The parent may have been moved since it was opened; it must still be inside before we commit. */
  private async reverify(dir: OpenedDirectory): Promise<void> {
    const real = await realPathOfHandle(dir.handle, dir.real);
    if (!this.allowed.containsReal(real)) throw new PathChangedError(`Access denied - ${dir.display} moved outside the allowed directories during the operation`);
  }

  private async verify(handle: FileHandle, absolute: string, display: string): Promise<OpenedEntry> {
    try {
      const real = await realPathOfHandle(handle, absolute);
      if (!this.allowed.containsReal(real)) {
        throw new AccessDeniedError(`Access denied - ${display} resolves outside the allowed directories`);
      }
      return { handle, real, stats: await handle.stat(), display };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }
}

/** The path of `name` inside an opened directory (through its descriptor where the platform allows). */
export function childPath(dir: OpenedDirectory, name: string): string {
  return `${dir.base}/${name}`;
}

async function lstatOrUndefined(p: string): Promise<Stats | undefined> {
  try {
    return await fs.lstat(p);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** The runtime's fs.readFile error on a directory, named by the root directory; asked once. */
let directoryReadProbe: Promise<{ message: string; named: string }> | undefined;

/**
 * The error reading the directory `real` gives, worded as this runtime's fs.readFile words it, which is what
 * the official server (fs.readFile on the real path) answers: Node 26 names the path ("EISDIR: illegal
 * operation on a directory, read '/a/sub'"), Node 20-24 and Bun do not. The wording is asked of the runtime
 * once, by reading the file-system root (always a directory, and never a client's path), not kept per version.
 */
async function directoryReadMessage(real: string): Promise<string> {
  directoryReadProbe ??= (async () => {
    const named = path.parse(process.cwd()).root;
    const error = await fs.readFile(named).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    const message = error instanceof Error && errorCode(error) === 'EISDIR' ? error.message : 'EISDIR: illegal operation on a directory, read';
    return { message, named };
  })();
  const { message, named } = await directoryReadProbe;
  return message.replace(`'${named}'`, `'${real}'`);
}
