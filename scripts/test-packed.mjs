// Proves the three packages work as published: packs them, installs only the tarballs (and what they need
// from the registry) into an empty project outside the workspace, and runs there what a user runs:
//   - `npx mcp-filesystem-media-server DIR` as Claude Desktop or VS Code start it, asked for tools/list and a
//     read_media_file by the SDK's stock JSON client;
//   - `npx mcp-msgpack-bench` in quick mode on one small scenario;
//   - the READMEs' client examples (blocks marked `<!-- test-packed: ... -->`), as written.
// Usage: node scripts/test-packed.mjs [--keep]   (after `npm run build`; --keep leaves the project in place)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const PACKAGES = ['transport-msgpack', 'filesystem-media-server', 'bench'];
const keep = process.argv.includes('--keep');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

const work = mkdtempSync(join(tmpdir(), 'mcp-msgpack-packed-'));
const packs = join(work, 'packs');
const project = join(work, 'project');
const media = join(project, 'media');
const started = Date.now();

/** Runs one step; on failure says which step, the command and everything it printed, and exits 1. */
function run(step, command, args, { cwd = project, timeoutMs = 120_000, check, env = {} } = {}) {
  process.stdout.write(`test-packed: ${step} ... `);
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, npm_config_yes: 'false', ...env } });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  let problem;
  if (result.error?.code === 'ETIMEDOUT') problem = `did not finish within ${timeoutMs / 1000} s`;
  else if (result.error) problem = result.error.message;
  else if (result.status !== 0) problem = `exited with ${result.status ?? result.signal}`;
  else problem = check?.(result.stdout, result.stderr);
  if (problem) fail(`${step}: ${problem}\n$ (cd ${cwd} && ${command} ${args.join(' ')})\n${output.trimEnd()}`);
  console.log(`ok (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  return result.stdout;
}

function fail(message) {
  console.log('FAILED');
  console.error(`\ntest-packed FAILED: ${message}\n(project kept in ${project})`);
  process.exit(1);
}

/** src/ is not shipped, so every source map must carry its sources (sourcesContent) or it points at nothing. */
function checkSourceMaps() {
  process.stdout.write('test-packed: source maps carry their sources ... ');
  let maps = 0;
  for (const name of ['mcp-msgpack-transport', 'mcp-filesystem-media-server', 'mcp-msgpack-bench']) {
    const dir = join(project, 'node_modules', name);
    for (const file of readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.map'))) {
      const map = JSON.parse(readFileSync(join(dir, file), 'utf8'));
      const missing = map.sources.filter((source, i) => !existsSync(join(dir, file, '..', source)) && typeof map.sourcesContent?.[i] !== 'string');
      if (missing.length > 0) fail(`${name}/${file} points at ${missing.join(', ')}, which is neither shipped nor inlined`);
      maps++;
    }
  }
  console.log(`ok (${maps} maps)`);
}

for (const pkg of PACKAGES) {
  if (!existsSync(join(root, 'packages', pkg, 'dist'))) fail(`packages/${pkg}/dist is missing: run \`npm run build\` first`);
}
mkdirSync(packs);
mkdirSync(media, { recursive: true });

for (const pkg of PACKAGES) run(`npm pack ${pkg}`, npm, ['pack', '--pack-destination', packs], { cwd: join(root, 'packages', pkg) });
const tarballs = readdirSync(packs).filter((f) => f.endsWith('.tgz')).map((f) => join(packs, f));
if (tarballs.length !== PACKAGES.length) fail(`expected ${PACKAGES.length} tarballs, found ${tarballs.join(', ')}`);

writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'packed-consumer', private: true, type: 'module' }, null, 2));
run('npm install the tarballs (registry for the rest)', npm, ['install', '--no-audit', '--no-fund', ...tarballs], { timeoutMs: 180_000 });
for (const name of ['mcp-msgpack-transport', 'mcp-filesystem-media-server', 'mcp-msgpack-bench']) {
  const dir = join(project, 'node_modules', name);
  if (!existsSync(dir) || lstatSync(dir).isSymbolicLink()) fail(`node_modules/${name} is missing or a link, not the installed tarball`);
  if (!existsSync(join(dir, 'LICENSE'))) fail(`${name}'s tarball has no LICENSE`);
}
run('npm ls (every dependency resolved)', npm, ['ls', '--all'], { timeoutMs: 60_000 });
checkSourceMaps();

// Media to read: a real PNG header and enough bytes that the large-bin path (32 KiB and more) is taken.
const png = Buffer.alloc(300 * 1024);
Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png);
for (let i = 8; i < png.length; i++) png[i] = (i * 31) & 0xff;
writeFileSync(join(media, 'pixel.png'), png);

// The server as a desktop client starts it, driven by the SDK's stock stdio client (JSON wire).
writeFileSync(
  join(project, 'stock-client.mjs'),
  `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
const dir = process.argv[2];
const client = new Client({ name: 'test-packed', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: '${npx}', args: ['mcp-filesystem-media-server', dir], stderr: 'inherit' }));
try {
  const { tools } = await client.listTools();
  if (tools.length !== 14 || !tools.some((t) => t.name === 'read_media_file')) throw new Error('tools/list: ' + tools.map((t) => t.name));
  const result = await client.callTool({ name: 'read_media_file', arguments: { path: join(dir, 'pixel.png') } });
  const image = result.content[0];
  if (result.isError || image.type !== 'image' || image.mimeType !== 'image/png') throw new Error('read_media_file: ' + JSON.stringify(result).slice(0, 300));
  if (!Buffer.from(image.data, 'base64').equals(readFileSync(join(dir, 'pixel.png')))) throw new Error('read_media_file: the bytes differ from the file');
  console.log('tools/list and read_media_file answered');
} finally {
  await client.close();
}
`,
);
run('npx mcp-filesystem-media-server DIR, stock SDK client', process.execPath, ['stock-client.mjs', media], { timeoutMs: 60_000 });

run('npx mcp-msgpack-bench --scenario small-calls/stdio', npx, ['mcp-msgpack-bench', '--scenario', 'small-calls/stdio'], {
  timeoutMs: 120_000,
  check: (stdout) => (/small-calls\/stdio/.test(stdout) ? undefined : 'the output does not mention the scenario it ran'),
});

// The READMEs' examples, as written: a block after `<!-- test-packed: write FILE -->` is saved as FILE, one after
// `<!-- test-packed: run FILE -->` is saved and run (with the media directory as its working directory), and
// must exit by itself within the time limit: an example that never closes its client fails here. A block after
// `<!-- test-packed: start FILE -->` is an HTTP server: started with PORT=0, its `MCP at URL` line gives the
// URL the later examples get as MCP_URL, and at the end SIGTERM must make it close and exit 0.
const EXPECTED_OUTPUT = {
  'readme-client.mjs': (stdout) => /14 tools: .*read_media_file/.test(stdout) && stdout.includes(`image: ${png.length} bytes of image/png`),
  'stdio-client.mjs': (stdout) => stdout.includes("name: 'my-server'") && stdout.includes('hello over msgpack'),
  'stdio-client-v1.mjs': (stdout) => stdout.includes('hello from v1'),
  'http-client.mjs': (stdout) => stdout.includes('hello over msgpack'),
  'readme-server-check.mjs': (stdout) => stdout.includes('hello over msgpack'),
};
const examples = [];
for (const readme of ['README.md', 'packages/transport-msgpack/README.md', 'packages/filesystem-media-server/README.md', 'packages/bench/README.md']) {
  const text = readFileSync(join(root, readme), 'utf8');
  for (const [, action, file, code] of text.matchAll(/<!-- test-packed: (write|run|start) (\S+) -->\s*```(?:js|ts)\n([\s\S]*?)```/g)) {
    writeFileSync(join(media, file), code);
    if (action !== 'write') examples.push({ readme, action, file });
  }
}
// The top README's server is only written there: a client of ours calls its tool.
writeFileSync(
  join(media, 'readme-server-check.mjs'),
  `import { Client } from '@modelcontextprotocol/client';
import { StdioMsgpackClientTransport } from 'mcp-msgpack-transport';
const transport = new StdioMsgpackClientTransport({ command: 'node', args: ['readme-server.mjs'] });
const client = new Client({ name: 'check', version: '1.0.0' });
await client.connect(transport);
try {
  const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  console.log(result.content[0].text, 'over', transport.wire);
} finally {
  await client.close();
}
`,
);
examples.push({ readme: 'README.md', action: 'run', file: 'readme-server-check.mjs' });
for (const name of Object.keys(EXPECTED_OUTPUT)) {
  if (!examples.some((e) => e.file === name)) fail(`no README block marked <!-- test-packed: run ${name} -->`);
}
const servers = [];
const exampleEnv = {};
for (const { readme, action, file } of examples) {
  if (action === 'start') {
    servers.push({ file, ...(await startServer(readme, file)) });
    continue;
  }
  run(`${readme}: ${file}`, process.execPath, [file], {
    cwd: media,
    timeoutMs: 60_000,
    env: exampleEnv,
    check: (stdout) => (EXPECTED_OUTPUT[file]?.(stdout) ?? true ? undefined : 'unexpected output (see below)'),
  });
}
for (const server of servers) await stopServer(server);

/** Starts a README's HTTP server on a free port and waits for its `MCP at URL` line. */
async function startServer(readme, file) {
  process.stdout.write(`test-packed: ${readme}: ${file} (started) ... `);
  const child = spawn(process.execPath, [file], { cwd: media, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 30_000);
    const onData = (chunk) => {
      output += chunk;
      const match = /MCP at (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('exit', () => resolve(undefined));
  });
  if (!url) {
    child.kill('SIGKILL');
    fail(`${file} printed no "MCP at URL" line within 30 s:\n${output}`);
  }
  exampleEnv.MCP_URL = url;
  console.log(`ok, ${url}`);
  return { child, output: () => output };
}

/** SIGTERM, as a process manager stops it: the example's handler closes the server and exits 0. */
async function stopServer({ file, child, output }) {
  process.stdout.write(`test-packed: ${file} stops on SIGTERM ... `);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  child.kill('SIGTERM');
  const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running after 10 s'), 10_000))]);
  if (code !== 0) {
    child.kill('SIGKILL');
    fail(`${file} on SIGTERM: ${code}\n${output()}`);
  }
  console.log('ok');
}

if (!keep) rmSync(work, { recursive: true, force: true });
console.log(`test-packed: all three tarballs install and run on their own (${((Date.now() - started) / 1000).toFixed(0)} s)`);
