// Checks the release artifacts as a user meets them: `npm run release` into a temp folder, then, for each
// publishable package, an empty project outside the workspace where the tarballs are copied and the command
// INSTALL.txt gives for that package is run as written (the registry for everything else). The package must
// then resolve completely (`npm ls --all`), load (its main entry, when it has one) and have its commands.
// Then the desktop configs of the bridge's and the media server's READMEs, as a host launches them
// (host-configs.mjs in scripts/lib says how).
// Usage: node scripts/test-release.mjs [--keep]   (after `npm run build`)
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkHostConfigs } from './lib/host-configs.mjs';
import { publishablePackages } from './lib/workspaces.mjs';

const root = new URL('..', import.meta.url).pathname;
const keep = process.argv.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'mcp-msgpack-release-'));
const out = join(work, 'release');
const started = Date.now();

function run(step, command, args, cwd, timeoutMs = 180_000, env = process.env) {
  process.stdout.write(`test-release: ${step} ... `);
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: timeoutMs, env });
  if (result.status !== 0) fail(`$ (cd ${cwd} && ${command} ${args.join(' ')})\n${result.error?.message ?? ''}${result.stdout}${result.stderr}`);
  console.log(`ok (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  return result.stdout;
}

function fail(message) {
  console.log('FAILED');
  console.error(`test-release FAILED: ${message}\n(kept in ${work})`);
  process.exit(1);
}

run('npm run release', process.execPath, [join(root, 'scripts', 'release.mjs'), '--out', out], root);
const install = readFileSync(join(out, 'INSTALL.txt'), 'utf8');
const tarballs = readdirSync(out).filter((f) => f.endsWith('.tgz'));
const packages = publishablePackages();
if (tarballs.length !== packages.length) fail(`${tarballs.length} tarballs for ${packages.length} publishable packages`);

for (const pkg of packages) {
  // The documented command, as written under the package's name.
  const command = new RegExp(`^${pkg.name.replace(/[/.]/g, '\\$&')}:\\n  (npm install .*)$`, 'm').exec(install)?.[1];
  if (!command) fail(`INSTALL.txt has no command for ${pkg.name}:\n${install}`);
  const project = join(work, pkg.name.replace('/', '-'));
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'release-consumer', private: true, type: 'module' }));
  for (const tarball of tarballs) copyFileSync(join(out, tarball), join(project, tarball));
  const [npm, ...args] = command.split(' ');
  run(`${pkg.name}: ${command}`, npm, [...args, '--no-audit', '--no-fund'], project);
  run(`${pkg.name}: npm ls --all`, 'npm', ['ls', '--all'], project, 60_000);
  const manifest = JSON.parse(readFileSync(join(project, 'node_modules', pkg.name, 'package.json'), 'utf8'));
  if (manifest.exports || manifest.main) run(`${pkg.name}: import`, process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(pkg.name)})`], project, 60_000);
  if (pkg.name === 'mcp-msgpack-transport') {
    // Installed alone, without an SDK or `redis` (all optional peers): every entry point still loads, ESM and
    // CommonJS; the application's own import of what it uses is what needs the peer.
    const check = `const names = [await import('mcp-msgpack-transport'), await import('mcp-msgpack-transport/wire'), await import('mcp-msgpack-transport/redis')].map((m) => Object.keys(m).length);
const { createRequire } = await import('node:module');
const require = createRequire(import.meta.url + '/');
if (typeof require('mcp-msgpack-transport/redis').RedisEventStore !== 'function') throw new Error('no RedisEventStore from require');
if (typeof (await import('mcp-msgpack-transport/redis')).RedisEventStore !== 'function') throw new Error('no RedisEventStore from import');
console.log(names);`;
    run(`${pkg.name}: every entry point loads without the optional peers (no SDK, no redis)`, process.execPath, ['--input-type=module', '-e', check], project, 60_000);
  }
  for (const bin of pkg.bin) {
    if (!existsSync(join(project, 'node_modules', '.bin', bin))) fail(`${pkg.name}: no node_modules/.bin/${bin} after the install`);
  }
}
await checkHostConfigs({ run, fail, work, projectOf: (name) => join(work, name.replace('/', '-')) });
if (!keep) rmSync(work, { recursive: true, force: true });
console.log(`test-release: each of ${packages.length} packages installs alone from its documented command (${((Date.now() - started) / 1000).toFixed(0)} s)`);
