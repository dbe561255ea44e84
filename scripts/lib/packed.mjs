// What the scripts that test the published form share (test-packed.mjs, test-frameworks.mjs,
// test-sdk-install.mjs): numbered steps that stop at the first failure with everything it printed, packing
// workspace packages into tarballs, a test image, and the workspace's Bun binary.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
export const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const require = createRequire(import.meta.url);

/**
 * Steps of one script, named `label` in its output: `run(step, command, args, options)` runs a command in
 * `project` (or `cwd`) and returns its stdout; on a failure, a timeout or a `check(stdout, stderr)` that
 * returns a problem, `fail` prints the step, the command and its output, and exits 1 (the project is kept).
 */
export function createSteps(label, { project }) {
  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;

  function fail(message) {
    console.log('FAILED');
    console.error(`\n${label} FAILED: ${message}\n(project kept in ${project})`);
    process.exit(1);
  }

  function run(step, command, args, { cwd = project, timeoutMs = 120_000, check, env } = {}) {
    process.stdout.write(`${label}: ${step} ... `);
    const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, npm_config_yes: 'false', ...env } });
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
    let problem;
    if (result.error?.code === 'ETIMEDOUT') problem = `did not finish within ${timeoutMs / 1000} s`;
    else if (result.error) problem = result.error.message;
    else if (result.status !== 0) problem = `exited with ${result.status ?? result.signal}`;
    else problem = check?.(result.stdout, result.stderr);
    if (problem) fail(`${step}: ${problem}\n$ (cd ${cwd} && ${command} ${args.join(' ')})\n${output.trimEnd()}`);
    console.log(`ok (${elapsed()})`);
    return result.stdout;
  }

  return { run, fail, elapsed };
}

/**
 * A fresh directory outside the workspace: `packs/` for tarballs, and `project/` (the consumer project,
 * with an empty `media/` directory in it). Nothing there can resolve a module from the workspace.
 */
export function tempProject(prefix) {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const paths = { work, packs: join(work, 'packs'), project: join(work, 'project'), media: join(work, 'project', 'media') };
  mkdirSync(paths.packs);
  mkdirSync(paths.media, { recursive: true });
  return paths;
}

/** Packs packages/<name> for each name into `destination`; returns the tarballs' paths. Needs `npm run build`. */
export function packPackages({ run, fail }, packages, destination) {
  for (const pkg of packages) {
    if (!existsSync(join(root, 'packages', pkg, 'dist'))) fail(`packages/${pkg}/dist is missing: run \`npm run build\` first`);
  }
  for (const pkg of packages) run(`npm pack ${pkg}`, npm, ['pack', '--pack-destination', destination], { cwd: join(root, 'packages', pkg) });
  const tarballs = readdirSync(destination)
    .filter((f) => f.endsWith('.tgz'))
    .map((f) => join(destination, f));
  if (tarballs.length !== packages.length) fail(`expected ${packages.length} tarballs, found ${tarballs.join(', ')}`);
  return tarballs;
}

/**
 * Writes a PNG-headed file of `size` bytes at `path` and returns its bytes: a real PNG signature, then a
 * pattern; 300 KiB takes the transport's large-bin path (32 KiB and more).
 */
export function writeTestPng(path, size = 300 * 1024) {
  const png = Buffer.alloc(size);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png);
  for (let i = 8; i < png.length; i++) png[i] = (i * 31) & 0xff;
  writeFileSync(path, png);
  return png;
}

/** The workspace's Bun binary (the `bun` devDependency), or undefined when it is not installed. */
export function bunBinary() {
  try {
    const dir = dirname(require.resolve('bun/package.json', { paths: [root] }));
    // The npm package names its binary bun.exe on every platform.
    return ['bun.exe', 'bun'].map((name) => join(dir, 'bin', name)).find((binary) => existsSync(binary));
  } catch {
    return undefined;
  }
}

/** The READMEs whose examples are run, as written, from the packed packages. */
const READMES = ['README.md', 'packages/transport-msgpack/README.md', 'packages/filesystem-media-server/README.md', 'packages/bench/README.md'];

/**
 * The READMEs' examples for one script (`marker`: test-packed, test-frameworks): a block after `<!-- MARKER:
 * write FILE -->` is saved as FILE in `directory`; one after `<!-- MARKER: run FILE -->` is saved and run there
 * (with each of `runtimes`, [label, binary] pairs) and must exit by itself within the time limit: an example
 * that never closes its client fails. A block after `<!-- MARKER: start FILE -->` is an HTTP server: started
 * with PORT=0, its `MCP at URL` line gives the URL the later examples get as MCP_URL, and at the end SIGTERM
 * must make it close and exit 0. `extra` lists files the script wrote itself ({ readme, file }), run after
 * the READMEs' own. `expected` maps a file to a check of its stdout; each must be found.
 */
export async function runReadmeExamples({ run, fail }, marker, directory, expected, { runtimes = [['node', process.execPath]], extra = [] } = {}) {
  const examples = [];
  const block = new RegExp(`<!-- ${marker}: (write|run|start) (\\S+) -->\\s*\`\`\`(?:js|ts)\\n([\\s\\S]*?)\`\`\``, 'g');
  for (const readme of READMES) {
    for (const [, action, file, code] of readFileSync(join(root, readme), 'utf8').matchAll(block)) {
      writeFileSync(join(directory, file), code);
      if (action !== 'write') examples.push({ readme, action, file });
    }
  }
  for (const { readme, file } of extra) examples.push({ readme, action: 'run', file });
  for (const name of Object.keys(expected)) {
    if (!examples.some((e) => e.file === name)) fail(`no README block marked <!-- ${marker}: run ${name} -->`);
  }
  const servers = [];
  const env = {};
  try {
    for (const { readme, action, file } of examples) {
      if (action === 'start') {
        const server = await startExampleServer({ fail }, marker, directory, readme, file);
        servers.push(server);
        env.MCP_URL = server.url;
        continue;
      }
      for (const [label, binary] of runtimes) {
        run(`${readme}: ${label} ${file}`, binary, [file], {
          cwd: directory,
          timeoutMs: 60_000,
          env,
          check: (stdout) => ((expected[file]?.(stdout) ?? true) ? undefined : 'unexpected output (see below)'),
        });
      }
    }
    for (const server of servers.splice(0)) await stopExampleServer({ fail }, marker, server);
  } finally {
    for (const server of servers) server.child.kill('SIGKILL');
  }
}

/** Starts a README's HTTP server on a free port and waits for its `MCP at URL` line. */
async function startExampleServer({ fail }, marker, directory, readme, file) {
  process.stdout.write(`${marker}: ${readme}: ${file} (started) ... `);
  const child = spawn(process.execPath, [file], { cwd: directory, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 30_000);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /MCP at (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('exit', () => resolve(undefined));
  });
  if (!url) {
    child.kill('SIGKILL');
    fail(`${file} printed no "MCP at URL" line within 30 s:\n${output}`);
  }
  console.log(`ok, ${url}`);
  return { file, child, url, output: () => output };
}

/** SIGTERM, as a process manager stops it: the example's handler closes the server and exits 0. */
async function stopExampleServer({ fail }, marker, { file, child, output }) {
  process.stdout.write(`${marker}: ${file} stops on SIGTERM ... `);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  child.kill('SIGTERM');
  const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running after 10 s'), 10_000))]);
  if (code !== 0) {
    child.kill('SIGKILL');
    fail(`${file} on SIGTERM: ${code}\n${output()}`);
  }
  console.log('ok');
}
