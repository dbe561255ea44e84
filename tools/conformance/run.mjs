// `npm run conformance`: installs the pinned runner if needed, builds the transport, starts the example
// conformance server on 127.0.0.1 (a free port), runs `conformance server --suite active` against it with
// the runner's own Node 22, reports, and always stops the server. Exit status: the runner's.
//   node tools/conformance/run.mjs [extra runner arguments, e.g. --scenario tools-list]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
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
if (!existsSync(runner) || !existsSync(node22)) step(npm, ['ci', '--prefix', here, '--no-audit', '--no-fund']);
step(npm, ['run', 'build', '--workspace', 'packages/transport-msgpack']);

const server = spawn(process.execPath, [join(root, 'examples', 'conformance-server', 'server.mjs'), '--host', '127.0.0.1', '--port', '0'], {
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

console.log(`conformance: example server at ${url}`);
const args = [runner, 'server', '--url', url, ...(process.argv.includes('--scenario') || process.argv.includes('--suite') ? [] : ['--suite', 'active']), ...process.argv.slice(2)];
const result = spawnSync(node22, args, { cwd: root, stdio: 'inherit' });
stopServer();
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (result.status === 0) console.log(`conformance: passed (${seconds} s in all)`);
else console.error(`conformance: FAILED with status ${result.status ?? result.signal} (${seconds} s in all)`);
process.exit(result.status ?? 1);
