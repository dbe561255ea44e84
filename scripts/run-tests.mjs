// Runs every package's compiled tests (packages/*/build/test/**/*.test.js) on one runtime:
//   node scripts/run-tests.mjs node|bun [filter]
// The same files run on both: they use node:test, which bun's test runner also implements.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';

const runtime = process.argv[2];
const filter = process.argv[3];
if (runtime !== 'node' && runtime !== 'bun') {
  console.error('usage: node scripts/run-tests.mjs node|bun [filter]');
  process.exit(2);
}

const root = new URL('..', import.meta.url).pathname;
const files = [];
for (const pkg of readdirSync(join(root, 'packages'))) {
  const dir = join(root, 'packages', pkg, 'build', 'test');
  if (existsSync(dir)) collect(dir);
}
function collect(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path);
    else if (name.endsWith('.test.js') && (!filter || path.includes(filter))) files.push(relative(root, path));
  }
}
files.sort();
if (files.length === 0) {
  console.error('no compiled tests found: run `npm run build` first');
  process.exit(1);
}

let result;
if (runtime === 'node') {
  result = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...files], { cwd: root, stdio: 'inherit' });
} else {
  const require = createRequire(import.meta.url);
  const bunDir = require.resolve('bun/package.json').replace(/package\.json$/, '');
  const bun = join(bunDir, 'bin', 'bun.exe');
  // The npm package ships a placeholder that its postinstall replaces; run that step if it was skipped.
  if (spawnSync(bun, ['--version']).status !== 0) spawnSync(process.execPath, ['install.js'], { cwd: bunDir, stdio: 'inherit' });
  result = spawnSync(bun, ['test', '--timeout', '120000', ...files.map((f) => './' + f)], { cwd: root, stdio: 'inherit' });
}
process.exit(result.status ?? 1);
