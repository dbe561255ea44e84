// Writes the release artifacts: the tarball of every publishable workspace package into one folder
// (default release/), and INSTALL.txt there, the one `npm install` command per package that works on a
// machine with only the registry (a package's tarball named together with those of the workspace packages
// it depends on, which are not on the registry yet). Run after `npm run build`:
//   npm run release [-- --out DIR]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { publishablePackages, tarballsFor } from './lib/workspaces.mjs';

const root = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({ options: { out: { type: 'string', default: join(root, 'release') } } });
const out = resolve(values.out);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const packages = publishablePackages();
for (const pkg of packages) {
  if (!existsSync(join(root, pkg.dir, 'dist'))) fail(`${pkg.dir}/dist is missing: run \`npm run build\` first`);
}
mkdirSync(out, { recursive: true });
for (const name of readdirSync(out).filter((f) => f.endsWith('.tgz'))) rmSync(join(out, name));
for (const pkg of packages) {
  const result = spawnSync(npm, ['pack', '--silent', '--pack-destination', out], { cwd: join(root, pkg.dir), encoding: 'utf8' });
  if (result.status !== 0) fail(`npm pack in ${pkg.dir} failed:\n${result.stdout}${result.stderr}`);
  if (!existsSync(join(out, pkg.tarball))) fail(`npm pack in ${pkg.dir} did not write ${pkg.tarball}`);
}

const lines = [
  "To install one of these packages: copy the tarballs into your project's folder and run there the command",
  'under its name. Until the packages are on the registry, a tarball is named together with those of the',
  'packages it depends on; everything else comes from the registry.',
  '',
];
for (const pkg of packages)
  lines.push(
    `${pkg.name}:`,
    `  npm install ${tarballsFor(pkg, packages)
      .map((t) => `./${t}`)
      .join(' ')}`,
    '',
  );
lines.push('All of them at once:', `  npm install ${packages.map((p) => `./${p.tarball}`).join(' ')}`, '');
writeFileSync(join(out, 'INSTALL.txt'), lines.join('\n'));

const shown = (path) => (relative(process.cwd(), path).startsWith('..') ? path : relative(process.cwd(), path));
console.log(`release: ${packages.length} tarballs in ${shown(out)}/`);
for (const pkg of packages) console.log(`  ${pkg.tarball}`);
console.log(`how to install each: ${shown(join(out, 'INSTALL.txt'))}`);

function fail(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}
