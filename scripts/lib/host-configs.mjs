// The desktop-host configs of the READMEs, launched as a host launches them (for scripts/test-release.mjs):
// - each block marked `<!-- test-release: shell -->` (the one-command install for your user) runs as written
//   from the repository's root, with npm's global prefix pointed at a temporary folder, whose bin/ is then
//   put first on PATH, as a user's npm bin is;
// - each block marked `<!-- test-release: config -->` is parsed, and every server in it is started by the
//   SDK's stock stdio client from exactly its `command`, `args` and `env` (the example URL replaced by the
//   media server from the release on HTTP, the example folder by a test folder), which lists the tools and
//   reads an image, every byte checked. An `npx` config is started in a project where the release is
//   installed (test-release's own), with npm offline: the pinned version is taken from there, and a name that
//   is not ours on the registry can never be fetched and run.
// A json block with a "command" in these READMEs and no marker fails: every config a user may copy is tested.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readmeBlocks, root, writeTestPng } from './packed.mjs';
import { publishablePackages } from './workspaces.mjs';

const READMES = ['README.md', 'packages/bridge/README.md', 'packages/filesystem-media-server/README.md'];
/** What the READMEs' configs name, and what stands in for it here. */
const EXAMPLE_URL = 'https://media.example.com/mcp';
const EXAMPLE_DIR = '/Users/me/Pictures';
const STEP_MS = 60_000;

export async function checkHostConfigs({ run, fail, work, projectOf }) {
  const blocks = readmeBlocks(READMES);
  const unmarked = blocks.filter((b) => b.lang === 'json' && b.code.includes('"command"') && b.marker?.script !== 'test-release');
  if (unmarked.length > 0) fail(`host configs that nothing launches (mark them <!-- test-release: config -->): ${unmarked.map((b) => `${b.readme}:${b.line}`).join(', ')}`);

  const prefix = join(work, 'global');
  mkdirSync(prefix);
  const installEnv = { ...process.env, npm_config_prefix: prefix };
  // Each command line once: the top README repeats those of the bridge's and the media server's.
  const done = new Set();
  for (const { readme, line, code } of blocks.filter((b) => b.marker?.script === 'test-release' && b.marker.action === 'shell')) {
    for (const command of code.split('\n').filter((c) => c.trim() && !c.startsWith('#'))) {
      if (done.has(command)) continue;
      done.add(command);
      run(`${readme}:${line}: ${command} (as written; npm prefix: a temp folder)`, 'sh', ['-e', '-c', command], root, 300_000, installEnv);
    }
  }
  // A user's npm bin is on their PATH; the SDK's stock client passes PATH on to the command it starts.
  process.env.PATH = `${join(prefix, 'bin')}${delimiter}${process.env.PATH}`;

  const media = join(work, 'media');
  mkdirSync(media);
  const png = writeTestPng(join(media, 'pixel.png'));
  const server = await startMediaServer({ fail }, media);
  const versions = new Map(publishablePackages().map((p) => [p.name, p.version]));
  try {
    for (const { readme, line, code } of blocks.filter((b) => b.marker?.script === 'test-release' && b.marker.action === 'config')) {
      const config = JSON.parse(code);
      for (const [name, entry] of Object.entries(config.mcpServers ?? config.servers ?? {})) {
        const args = entry.args.map((arg) => (arg === EXAMPLE_URL ? server.url : arg === EXAMPLE_DIR ? media : arg));
        let cwd;
        let env = entry.env;
        if (entry.command === 'npx') {
          const spec = args.find((arg) => !arg.startsWith('-'));
          const [, pkg, version] = /^(.+)@([^@]+)$/.exec(spec) ?? [];
          if (!pkg) fail(`${readme}:${line}: the npx form runs ${spec} without a pinned version`);
          if (versions.get(pkg) !== version) fail(`${readme}:${line}: the npx form pins ${pkg}@${version}, the release is ${versions.get(pkg)}`);
          cwd = projectOf(pkg);
          env = { ...entry.env, npm_config_offline: 'true' };
        }
        const step = `${readme}:${line}: "${name}": ${entry.command} ${entry.args.join(' ')}`;
        process.stdout.write(`test-release: ${step} ... `);
        const problem = await launchAsHost({ command: entry.command, args, env, cwd }, media, png);
        if (problem) fail(`${step}: ${problem}`);
        console.log('ok');
      }
    }
  } finally {
    server.child.kill('SIGTERM');
  }
}

/** The installed media server on HTTP (port 0), for the bridge's configs to reach. */
async function startMediaServer({ fail }, media) {
  const child = spawn('mcp-filesystem-media-server', ['--http', '0', media], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 30_000);
    const read = (chunk) => {
      output += chunk;
      const match = /(http:\/\/\S+\/mcp)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', (error) => resolve(void (output += error.message)));
    child.once('exit', () => resolve(undefined));
  });
  if (!url) {
    child.kill('SIGKILL');
    fail(`the installed mcp-filesystem-media-server --http 0 printed no URL:\n${output}`);
  }
  return { child, url };
}

/** The SDK's stock stdio client, as a host: start the command, list the tools, read the image. */
async function launchAsHost(params, media, png) {
  const transport = new StdioClientTransport({ ...params, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += chunk));
  const client = new Client({ name: 'test-release-host', version: '1.0.0' });
  const within = (promise, what) => Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${STEP_MS / 1000} s`)), STEP_MS).unref())]);
  try {
    await within(client.connect(transport), 'initialize');
    const { tools } = await within(client.listTools(), 'tools/list');
    if (!tools.some((tool) => tool.name === 'read_media_file')) return `tools/list has no read_media_file: ${tools.map((t) => t.name)}`;
    const result = await within(client.callTool({ name: 'read_media_file', arguments: { path: join(media, 'pixel.png') } }), 'read_media_file');
    const image = result.content?.[0];
    if (result.isError || image?.type !== 'image') return `read_media_file: ${JSON.stringify(result).slice(0, 300)}`;
    if (!Buffer.from(image.data, 'base64').equals(png)) return 'read_media_file: the bytes differ from the file';
    return undefined;
  } catch (error) {
    return `${error.message}\n${stderr.trimEnd()}`;
  } finally {
    await client.close().catch(() => {});
  }
}
