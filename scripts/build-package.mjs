// Builds the package in the current directory: ESM (tsconfig.json), optionally CommonJS
// (tsconfig.cjs.json, marked with its own package.json), and the compiled tests (tsconfig.test.json).
// The source maps carry their sources inline (tsconfig.json, inlineSources), since src/ is not published,
// and the repository's LICENSE is copied in, since a package's `files` cannot reach above its directory.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const tsc = join(require.resolve('typescript/package.json').replace(/package\.json$/, ''), 'bin', 'tsc');
const run = (project) => execFileSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit' });

// From scratch, so that a module or test deleted from the sources is not packed or run from an old build.
for (const out of ['dist', 'build']) rmSync(out, { recursive: true, force: true });
copyFileSync(new URL('../LICENSE', import.meta.url), 'LICENSE');
run('tsconfig.json');
if (existsSync('tsconfig.cjs.json')) {
  run('tsconfig.cjs.json');
  mkdirSync(join('dist', 'cjs'), { recursive: true });
  writeFileSync(join('dist', 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
}
if (existsSync('tsconfig.test.json')) run('tsconfig.test.json');
