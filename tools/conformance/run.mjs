// `npm run conformance`: installs the pinned runner if needed, builds the transport, starts the example
// conformance server on 127.0.0.1 (a free port), runs `conformance server --suite active` against it with
// the runner's own Node 22, reports, and always stops the server. Exit status: the runner's.
//   node tools/conformance/run.mjs [extra runner arguments, e.g. --scenario tools-list]
// The runner (0.2.0-alpha.12) tests revision 2025-11-25 by default (`--spec-version 2025-11-25`, the SDK v1
// example server); `--revision 2026-07-28` (`npm run conformance:2026`) runs `--requirements 2026-07-28`
// against the SDK v2 example server (server-v2.mjs) instead: by hand for now, see the example's README.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const revisionAt = process.argv.indexOf('--revision');
const revision = revisionAt > 0 ? process.argv[revisionAt + 1] : '2025-11-25';
const passThrough = revisionAt > 0 ? process.argv.slice(2).filter((_, i) => i !== revisionAt - 2 && i !== revisionAt - 1) : process.argv.slice(2);
const REVISIONS = {
  '2025-11-25': { server: 'server.mjs', selection: ['--suite', 'active', '--spec-version', '2025-11-25'] },
  '2026-07-28': { server: 'server-v2.mjs', selection: ['--requirements', '2026-07-28'] },
};
const chosen = REVISIONS[revision];
if (!chosen) {
  console.error(`conformance: --revision must be one of ${Object.keys(REVISIONS).join(', ')}`);
  process.exit(2);
}
const runner = join(here, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const node22 = join(here, 'node_modules', 'node', 'bin', 'node');
const started = Date.now();

function step(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.status !== 0) {
    console.error(`conformance: \`${command} ${args.join(' ')}\` failed`);
    process.exit(result.status ?? 1);
  }
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// Installed, and the version pinned here (a checkout made before a re-pin has the old runner).
const pinned = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')).devDependencies['@modelcontextprotocol/conformance'];
const installed = existsSync(runner) ? JSON.parse(readFileSync(join(runner, '..', '..', 'package.json'), 'utf8')).version : undefined;
if (installed !== pinned || !existsSync(node22)) step(npm, ['ci', '--prefix', here, '--no-audit', '--no-fund']);
step(npm, ['run', 'build', '--workspace', 'packages/transport-msgpack']);

const server = spawn(process.execPath, [join(root, 'examples', 'conformance-server', chosen.server), '--host', '127.0.0.1', '--port', '0'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const stopServer = () => {
  if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
};
process.on('exit', stopServer);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopServer();
    process.exit(130);
  });
}

const url = await new Promise((resolve, reject) => {
  let output = '';
  const timer = setTimeout(() => reject(new Error('the example server did not start within 20 s')), 20_000);
  server.stdout.on('data', (chunk) => {
    output += chunk;
    const match = /listening (\S+)/.exec(output);
    if (match) {
      clearTimeout(timer);
      resolve(match[1]);
    }
  });
  server.on('exit', (code) => reject(new Error(`the example server exited early (code ${code})`)));
}).catch((error) => {
  console.error(`conformance: ${error.message}`);
  stopServer();
  process.exit(1);
});
server.stdout.resume();

console.log(`conformance: example server (${chosen.server}) at ${url}, revision ${revision}`);
const chooses = ['--scenario', '--suite', '--requirements'].some((flag) => passThrough.includes(flag));
const args = [runner, 'server', '--url', url, ...(chooses ? [] : chosen.selection), ...passThrough];
const result = spawnSync(node22, args, { cwd: root, stdio: 'inherit' });
stopServer();
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (result.status === 0) console.log(`conformance: passed (${seconds} s in all)`);
else console.error(`conformance: FAILED with status ${result.status ?? result.signal} (${seconds} s in all)`);
process.exit(result.status ?? 1);
