// Builds the package in the current directory: ESM (tsconfig.json), optionally CommonJS
// (tsconfig.cjs.json, marked with its own package.json), and the compiled tests (tsconfig.test.json).
// The source maps carry their sources inline (tsconfig.json, inlineSources), since src/ is not published,
// and the repository's LICENSE is copied in, since a package's `files` cannot reach above its directory.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  // Node looks `#name` imports up in the nearest package.json, which for dist/cjs is this one: it carries the
  // package's "imports" with their CommonJS targets, relative to dist/cjs.
  const { imports } = JSON.parse(readFileSync('package.json', 'utf8'));
  writeFileSync(join('dist', 'cjs', 'package.json'), `${JSON.stringify({ type: 'commonjs', ...(imports && { imports: cjsTargets(imports) }) }, null, 2)}\n`);
}
if (existsSync('tsconfig.test.json')) run('tsconfig.test.json');

/** An "imports" map with each { import, require } pair replaced by its require target, relative to dist/cjs. */
function cjsTargets(map) {
  if (typeof map !== 'object' || map === null) return map;
  if (typeof map.require === 'string') return map.require.replace(/^\.\/dist\/cjs\//, './');
  return Object.fromEntries(
    Object.entries(map)
      .filter(([condition]) => condition !== 'types')
      .map(([key, value]) => [key, cjsTargets(value)]),
  );
}
