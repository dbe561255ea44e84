// What the scripts that test the published form share (test-packed.mjs, test-frameworks.mjs,
// test-sdk-install.mjs): numbered steps that stop at the first failure with everything it printed, packing
// workspace packages into tarballs, a test image, and the workspace's Bun binary.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
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

/** The READMEs whose code blocks are run, as written, from the packed packages. */
export const READMES = ['README.md', 'packages/transport-msgpack/README.md', 'packages/filesystem-media-server/README.md', 'packages/bench/README.md', 'packages/bridge/README.md'];
/** Languages whose blocks are programs: each such block in a README must say how it is tested. */
const PROGRAM_LANGUAGES = new Set(['js', 'mjs', 'ts', 'javascript', 'typescript']);
const MARKER = /^<!-- ([\w-]+): (write|run|start|shell|excerpt|config)(?: (\S+))? -->$/;

/**
 * Every fenced block of the READMEs, with the marker on the line before it (blank lines between allowed):
 * { readme, line, lang, code, marker?: { script, action, file } }.
 */
export function readmeBlocks(readmes = READMES) {
  const blocks = [];
  for (const readme of readmes) {
    const lines = readFileSync(join(root, readme), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const fence = /^```(\S*)\s*$/.exec(lines[i]);
      if (!fence) continue;
      const end = lines.findIndex((line, j) => j > i && /^```\s*$/.test(line));
      if (end < 0) break;
      let before = i - 1;
      while (before >= 0 && lines[before].trim() === '') before--;
      const found = MARKER.exec(lines[before]?.trim() ?? '');
      const marker = found ? { script: found[1], action: found[2], file: found[3] } : undefined;
      blocks.push({ readme, line: i + 1, lang: fence[1], code: `${lines.slice(i + 1, end).join('\n')}\n`, marker });
      i = end;
    }
  }
  return blocks;
}

/** The program blocks (js, ts) that carry no marker at all: nothing would run them. */
export function unmarkedProgramBlocks() {
  return readmeBlocks().filter((block) => PROGRAM_LANGUAGES.has(block.lang) && !block.marker);
}

/**
 * A README's shell block with its `npm install` lines pointed at the packed tarballs: a package of ours named
 * by its registry name, or by its release tarball's file name (`./mcp-msgpack-transport-0.1.0.tgz`), becomes
 * the tarball's path. A tarball name that `npm pack` did not make (a stale version) is a failure.
 */
export function withTarballs({ fail }, script, tarballs, where) {
  const byName = new Map();
  for (const tarball of tarballs) {
    const file = basename(tarball);
    byName.set(file.replace(/-\d+\.\d+\.\d+[^/]*\.tgz$/, ''), tarball);
    byName.set(`./${file}`, tarball);
    byName.set(file, tarball);
  }
  return script
    .split('\n')
    .map((line) => {
      if (!/^\s*npm (install|i)\b/.test(line)) return line;
      return line
        .split(' ')
        .map((word) => {
          if (byName.has(word)) return byName.get(word);
          if (/^\.?\/?mcp-[\w-]+-\d[\w.-]*\.tgz$/.test(word)) fail(`${where} names ${word}, which the packed release does not have (${[...byName.keys()].filter((k) => k.startsWith('./')).join(', ')})`);
          return word;
        })
        .join(' ');
    })
    .join('\n');
}

/**
 * The READMEs' blocks for one script (`marker`: test-packed, test-frameworks), each README's in its own
 * directory (`directoryFor(readme)`), in the README's order:
 * - `<!-- MARKER: shell -->` before an sh block: the block runs there as one `sh -e` script, its `npm install`
 *   lines pointed at the packed tarballs (`tarballs`; see withTarballs): this is how the README says to make
 *   the project, so the project is made that way;
 * - `<!-- MARKER: write FILE -->`: the block is saved as FILE (every block's file is saved before any runs);
 * - `<!-- MARKER: run FILE -->`: saved and run (with each of `runtimes`, [label, binary] pairs); it must exit
 *   by itself within the time limit: an example that never closes its client fails;
 * - `<!-- MARKER: start FILE -->`: an HTTP server, started with PORT=0; its `MCP at URL` line gives the URL
 *   the later examples get as MCP_URL, and at the end SIGTERM must make it close and exit 0;
 * - `<!-- MARKER: excerpt -->`: part of a program (it uses names defined elsewhere), so not run; every name it
 *   imports from one of our packages must be exported by the installed package.
 * `extra` lists files the script wrote itself ({ readme, file }), run after that README's own. `expected`
 * maps a file to a check of its stdout; each must be found.
 */
export async function runReadmeExamples({ run, fail }, marker, directoryFor, expected, { runtimes = [['node', process.execPath]], extra = [], tarballs = [] } = {}) {
  const dirOf = typeof directoryFor === 'function' ? directoryFor : () => directoryFor;
  const blocks = readmeBlocks().filter((block) => block.marker?.script === marker);
  for (const name of Object.keys(expected)) {
    if (!blocks.some((b) => b.marker.file === name) && !extra.some((e) => e.file === name)) fail(`no README block marked <!-- ${marker}: run ${name} -->`);
  }
  const servers = [];
  const env = {};
  const runFile = (readme, file) => {
    for (const [label, binary] of runtimes) {
      run(`${readme}: ${label} ${file}`, binary, [file], {
        cwd: dirOf(readme),
        timeoutMs: 60_000,
        env,
        check: (stdout) => ((expected[file]?.(stdout) ?? true) ? undefined : 'unexpected output (see below)'),
      });
    }
  };
  // Every file first: an example may name a file a later block writes (the v1 client and "Server over stdio").
  for (const { readme, code, marker: m } of blocks) {
    mkdirSync(dirOf(readme), { recursive: true });
    if (m.file) writeFileSync(join(dirOf(readme), m.file), code);
  }
  try {
    for (const [index, { readme, line, code, marker: m }] of blocks.entries()) {
      const where = `${readme}:${line}`;
      const directory = dirOf(readme);
      if (m.action === 'shell') {
        run(`${where}: the shell block`, 'sh', ['-e', '-c', withTarballs({ fail }, code, tarballs, where)], { cwd: directory, timeoutMs: 240_000 });
      } else if (m.action === 'excerpt') {
        checkExcerptImports({ run, fail }, where, code, directory);
      } else if (m.action === 'start') {
        const server = await startExampleServer({ fail }, marker, directory, readme, m.file);
        servers.push(server);
        env.MCP_URL = server.url;
      } else if (m.action === 'run') {
        runFile(readme, m.file);
      } else if (m.action !== 'write') {
        fail(`${where}: <!-- ${marker}: ${m.action} --> is not something ${marker} does`);
      }
      // This README's extra checks run once its own blocks have.
      if (blocks[index + 1]?.readme !== readme) for (const e of extra.filter((e) => e.readme === readme)) runFile(readme, e.file);
    }
    for (const server of servers.splice(0)) await stopExampleServer({ fail }, marker, server);
  } finally {
    for (const server of servers) server.child.kill('SIGKILL');
  }
}

/** Our packages, whose names an excerpt imports must exist in the installed package. */
const OWN_PACKAGE = /^(mcp-msgpack-transport|mcp-filesystem-media-server|mcp-msgpack-bridge)(\/|$)/;

/** An excerpt is not run; what it imports from our packages is checked, so a renamed export fails here. */
function checkExcerptImports({ run }, where, code, directory) {
  const checks = [];
  for (const [, names, from] of code.matchAll(/^import\s*\{([^}]*)\}\s*from\s*'([^']+)'/gm)) {
    if (!OWN_PACKAGE.test(from)) continue;
    const values = names
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name && !name.startsWith('type '))
      .map((name) => name.split(/\s+as\s+/)[0]);
    checks.push(
      `{ const m = await import(${JSON.stringify(from)}); const gone = ${JSON.stringify(values)}.filter((n) => !(n in m)); if (gone.length) throw new Error(${JSON.stringify(from)} + ' does not export ' + gone.join(', ')); }`,
    );
  }
  if (checks.length === 0) return;
  run(`${where}: the excerpt's imports exist`, process.execPath, ['--input-type=module', '-e', checks.join('\n')], { cwd: directory, timeoutMs: 60_000 });
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
