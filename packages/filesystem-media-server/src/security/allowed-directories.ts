import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isInsideDirectory } from './path-inside.js';

/** One allowed directory: the absolute path as the user gave it, and its real path (symlinks resolved). */
export interface AllowedDirectory {
  readonly given: string;
  readonly real: string;
}

/** Expands a leading `~` or `~/` to the home directory, as a shell would; nothing else is rewritten. */
export function expandHome(p: string): string {
  if (p === '~') return os.homedir();
  if (p.startsWith('~/')) return path.join(os.homedir(), p.slice(2));
  return p;
}

/**
 * The set of directories the server may touch. Lexical checks (before any file is opened) accept a path
 * under either form; checks of opened files (whose path the kernel reports fully resolved) accept only
 * the real forms.
 */
export class AllowedDirectories {
  private entries: AllowedDirectory[];
  /** An update in progress (MCP roots being fetched): path checks wait for it rather than use a stale list. */
  private pending: Promise<unknown> | undefined;

  constructor(entries: readonly AllowedDirectory[] = []) {
    this.entries = [...entries];
  }

  /**
   * Resolves directory arguments the way the official server does: `~` expanded, made absolute, real path
   * taken; anything missing or not a directory is skipped with a warning.
   */
  static async fromPaths(dirs: readonly string[], warn: (message: string) => void = () => {}): Promise<AllowedDirectories> {
    const entries: AllowedDirectory[] = [];
    for (const dir of dirs) {
      const given = path.resolve(expandHome(dir));
      try {
        const real = await fs.realpath(given);
        if (!(await fs.stat(real)).isDirectory()) {
          warn(`Warning: ${given} is not a directory, skipping`);
          continue;
        }
        entries.push({ given, real });
      } catch {
        warn(`Warning: Cannot access directory ${given}, skipping`);
      }
    }
    return new AllowedDirectories(entries);
  }

  get size(): number {
    return this.entries.length;
  }

  /** Marks an update in progress until `update` settles (whatever its outcome). */
  track(update: Promise<unknown>): void {
    const tracked = update
      .catch(() => {})
      .finally(() => {
        if (this.pending === tracked) this.pending = undefined;
      });
    this.pending = tracked;
  }

  /** Resolves once no update is in progress. */
  async settled(): Promise<void> {
    while (this.pending) await this.pending;
  }

  /** Replaces every entry (MCP roots replace the command-line list). */
  replace(entries: readonly AllowedDirectory[]): void {
    this.entries = [...entries];
  }

  snapshot(): AllowedDirectory[] {
    return [...this.entries];
  }

  /** The list shown to clients: each given path, followed by its real path when that differs. */
  displayList(): string[] {
    const out: string[] = [];
    for (const { given, real } of this.entries) {
      if (!out.includes(given)) out.push(given);
      if (real !== given && !out.includes(real)) out.push(real);
    }
    return out;
  }

  /** Given forms first, in order: the bases relative paths are resolved against. */
  bases(): string[] {
    return this.entries.map((e) => e.given);
  }

  containsLexically(absolute: string): boolean {
    return this.entries.some((e) => isInsideDirectory(absolute, e.given) || isInsideDirectory(absolute, e.real));
  }

  containsReal(realPath: string): boolean {
    return this.entries.some((e) => isInsideDirectory(realPath, e.real));
  }

  /** True when `realPath` is one of the allowed directories itself (it has no allowed parent). */
  isRoot(realPath: string): boolean {
    return this.entries.some((e) => e.real === realPath || e.given === realPath);
  }
}
