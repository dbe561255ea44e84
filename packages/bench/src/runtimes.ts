import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { UsageError } from './options.js';

/**
 * The executable for a runtime: this process for the current one; for bun, the npm package's binary
 * (as scripts/run-tests.mjs finds it) or `bun` on PATH; for node, `node` on PATH.
 */
export function runtimeExecutable(name: 'node' | 'bun'): string {
  const bun = (process.versions as Record<string, string | undefined>).bun;
  if ((name === 'bun') === Boolean(bun)) return process.execPath;
  if (name === 'node') return 'node';
  try {
    const require = createRequire(import.meta.url);
    const path = join(require.resolve('bun/package.json').replace(/package\.json$/, ''), 'bin', 'bun.exe');
    if (existsSync(path) && spawnSync(path, ['--version']).status === 0) return path;
  } catch {
    // not installed as a package: try PATH
  }
  if (spawnSync('bun', ['--version']).status === 0) return 'bun';
  throw new UsageError('--runtime bun: bun was not found (neither the npm package bun nor bun on PATH); install it (npm install -D bun, or see https://bun.sh) or run with --runtime node');
}

export function runtimeVersion(executable: string): string {
  const out = spawnSync(executable, ['--version'], { encoding: 'utf8' });
  return (out.stdout ?? '').trim().replace(/^v/, '') || 'unknown';
}
