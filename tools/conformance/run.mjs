// `npm run conformance`: installs the pinned runner if needed, builds the transport, and for each protocol
// revision starts its example conformance server on 127.0.0.1 (a free port), runs the runner against it
// on Node 22 (which the runner needs; scripts/lib/node-versions.mjs installs it from npm into .cache/node/),
// reports, and always stops the server. Exit status: 0 when every run passed.
//   node tools/conformance/run.mjs [--revision R] [extra runner arguments, e.g. --scenario tools-list]
// The runner (0.2.0-alpha.12) tests both revisions: 2025-11-25 (`--suite active --spec-version
// 2025-11-25`) against the SDK v1 example server (server.mjs), then 2026-07-28 (`--requirements
// 2026-07-28`, the scenarios that revision scores) against the SDK v2 one (server-v2.mjs).
// `--revision R` runs one of them (`npm run conformance:2026`). No scenario is excluded.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeBinary } from '../../scripts/lib/node-versions.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const revisionAt = process.argv.indexOf('--revision');
const revision = revisionAt > 0 ? process.argv[revisionAt + 1] : undefined;
const passThrough = revisionAt > 0 ? process.argv.slice(2).filter((_, i) => i !== revisionAt - 2 && i !== revisionAt - 1) : process.argv.slice(2);
const REVISIONS = {
  '2025-11-25': { server: 'server.mjs', selection: ['--suite', 'active', '--spec-version', '2025-11-25'] },
  '2026-07-28': { server: 'server-v2.mjs', selection: ['--requirements', '2026-07-28'] },
};
if (revision !== undefined && !REVISIONS[revision]) {
  console.error(`conformance: --revision must be one of ${Object.keys(REVISIONS).join(', ')}`);
  process.exit(2);
}
const runner = join(here, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
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
if (installed !== pinned) step(npm, ['ci', '--prefix', here, '--no-audit', '--no-fund']);
step(npm, ['run', 'build', '--workspace', 'packages/transport-msgpack']);
const node22 = nodeBinary('22');

/** Serves the revision's example server, runs the runner against it, stops the server: the runner's status. */
async function run(revision) {
  const chosen = REVISIONS[revision];
  const server = spawn(process.execPath, [join(root, 'examples', 'conformance-server', chosen.server), '--host', '127.0.0.1', '--port', '0'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stopServer = () => {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
  };
  process.on('exit', stopServer);
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
  process.off('exit', stopServer);
  const status = result.status ?? 1;
  console.log(`conformance: revision ${revision} ${status === 0 ? 'passed' : `FAILED with status ${result.status ?? result.signal}`}`);
  return status;
}

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));
const statuses = [];
for (const each of revision === undefined ? Object.keys(REVISIONS) : [revision]) statuses.push(await run(each));
const failed = statuses.find((status) => status !== 0);
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (failed === undefined) console.log(`conformance: passed (${seconds} s in all)`);
else console.error(`conformance: FAILED (${seconds} s in all)`);
process.exit(failed ?? 0);
