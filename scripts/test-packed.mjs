// Proves the three packages work as published: packs them, installs only the tarballs (and what they need
// from the registry) into an empty project outside the workspace, and runs there what a user runs:
//   - `npx mcp-filesystem-media-server DIR` as Claude Desktop or VS Code start it, asked for tools/list and a
//     read_media_file by the SDK's stock JSON client;
//   - `npx mcp-msgpack-bench` in quick mode on one small scenario;
//   - every program block of the READMEs (each must be marked `<!-- test-packed: ... -->` or
//     `<!-- test-frameworks: ... -->`), as written, each README's in a project of its own made the way that
//     README says (its marked shell blocks: `npm init -y`, then its `npm install` lines with the tarballs
//     in place of our packages' names).
// Usage: node scripts/test-packed.mjs [--keep]   (after `npm run build`; --keep leaves the project in place)
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createSteps, npm, npx, packPackages, runReadmeExamples, tempProject, unmarkedProgramBlocks, writeTestPng } from './lib/packed.mjs';

const PACKAGES = ['transport-msgpack', 'filesystem-media-server', 'bench'];
const keep = process.argv.includes('--keep');

const { work, packs, project, media } = tempProject('mcp-msgpack-packed-');
const { run, fail, elapsed } = createSteps('test-packed', { project });

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

const tarballs = packPackages({ run, fail }, PACKAGES, packs);

writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'packed-consumer', private: true, type: 'module' }, null, 2));
run('npm install the tarballs (registry for the rest)', npm, ['install', '--no-audit', '--no-fund', ...tarballs], { timeoutMs: 180_000 });
for (const name of ['mcp-msgpack-transport', 'mcp-filesystem-media-server', 'mcp-msgpack-bench']) {
  const dir = join(project, 'node_modules', name);
  if (!existsSync(dir) || lstatSync(dir).isSymbolicLink()) fail(`node_modules/${name} is missing or a link, not the installed tarball`);
  if (!existsSync(join(dir, 'LICENSE'))) fail(`${name}'s tarball has no LICENSE`);
}
run('npm ls (every dependency resolved)', npm, ['ls', '--all'], { timeoutMs: 60_000 });
checkSourceMaps();

// Media to read: enough bytes that the large-bin path (32 KiB and more) is taken.
writeTestPng(join(media, 'pixel.png'));

// The server as a desktop client starts it, driven by the SDK's stock stdio client (JSON wire).
writeFileSync(
  join(project, 'stock-client.mjs'),
  `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
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

// The READMEs' program blocks, as written, each README's in a project made by its own shell blocks
// (runReadmeExamples in scripts/lib/packed.mjs says how blocks are marked, and how a `start` server is run).
// A program block without a marker would be run by nothing: that fails here, so docs and test cannot drift.
const unmarked = unmarkedProgramBlocks();
if (unmarked.length > 0) fail(`README program blocks that no script runs (mark each <!-- test-packed: run|write|start|excerpt ... -->):\n${unmarked.map((b) => `  ${b.readme}:${b.line}`).join('\n')}`);
const EXPECTED_OUTPUT = {
  // The top README's own 1x1 PNG, made by its shell block: 70 bytes.
  'readme-client.mjs': (stdout) => /14 tools: .*read_media_file/.test(stdout) && stdout.includes('image: 70 bytes of image/png'),
  'stdio-client.mjs': (stdout) => stdout.includes("name: 'my-server'") && stdout.includes('hello over msgpack'),
  'stdio-client-v1.mjs': (stdout) => stdout.includes('hello from v1'),
  'http-client.mjs': (stdout) => stdout.includes('hello over msgpack'),
  'readme-server-check.mjs': (stdout) => stdout.includes('hello over msgpack'),
};
const readmeProject = (readme) => join(work, `readme-${readme === 'README.md' ? 'top' : basename(join(readme, '..'))}`);
// The top README's server is only written there: a client of ours calls its tool.
mkdirSync(readmeProject('README.md'));
writeFileSync(
  join(readmeProject('README.md'), 'readme-server-check.mjs'),
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
await runReadmeExamples({ run, fail }, 'test-packed', readmeProject, EXPECTED_OUTPUT, {
  extra: [{ readme: 'README.md', file: 'readme-server-check.mjs' }],
  tarballs,
});
for (const readme of ['README.md', 'packages/transport-msgpack/README.md', 'packages/filesystem-media-server/README.md']) {
  const manifest = JSON.parse(readFileSync(join(readmeProject(readme), 'package.json'), 'utf8'));
  if (manifest.type === 'module') fail(`${readme}'s project says "type": "module", so it does not show that the examples run in the project \`npm init -y\` makes`);
}

if (!keep) rmSync(work, { recursive: true, force: true });
console.log(`test-packed: all three tarballs install and run on their own (${elapsed()})`);
