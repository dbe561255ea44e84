// Proves the agent frameworks people use can use what this repository publishes, as published: packs
// mcp-msgpack-transport and mcp-filesystem-media-server, installs the tarballs into an empty project outside
// the workspace next to pinned versions of the frameworks from the registry, and runs there, against the
// media server over stdio and over HTTP (its bin, `--http 0`):
//   - the AI SDK, @openai/agents (through mcp-msgpack-transport/agents), @langchain/mcp-adapters, Strands
//     Agents TS and Genkit on our client transports, with Node and with Bun (scripts/frameworks/*.mjs; MessagePack and native bytes are
//     asserted on the bytes the server sent), and the transport README's examples for them, as written;
//   - the MCP Inspector's CLI (`mcp-inspector --cli`), a stock JSON client: tools/list and tools/call;
//   - a strict `tsc` of scripts/frameworks/types.ts: our classes type-check where the frameworks take them.
// No model is called and nothing leaves loopback but the registry install.
// Usage: node scripts/test-frameworks.mjs [--keep]   (after `npm run build`; --keep leaves the project in place)
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bunBinary, createSteps, npm, packPackages, root, runReadmeExamples, tempProject, writeTestPng } from './lib/packed.mjs';
import { startProcess, stopProcess } from './lib/services.mjs';

/**
 * The framework versions tested (the README's "Who can use it" table names them). Bump them here. The
 * Inspector declares Node >= 22.19 (npm warns EBADENGINE); its CLI runs on Node 20 as checked below.
 */
export const FRAMEWORKS = {
  '@ai-sdk/mcp': '2.0.99',
  '@openai/agents': '0.20.0',
  '@langchain/mcp-adapters': '1.1.4',
  '@langchain/core': '1.4.0',
  '@modelcontextprotocol/inspector': '2.12.0',
};
/**
 * Strands and Genkit, installed into a project of their own with --legacy-peer-deps: Strands declares some
 * thirty optional peers (model providers, OpenTelemetry exporters) whose ranges clash with Genkit's own
 * OpenTelemetry (ERESOLVE), and without auto-installed peers @langchain/mcp-adapters loses its
 * @langchain/langgraph. Every peer these two need is installed by name here. --omit=optional leaves out
 * Genkit's Firebase and Google Cloud plugins (half of the 360 MB); the one optional package it imports
 * anyway, @cfworker/json-schema, is named.
 */
export const OWN_PROJECT_FRAMEWORKS = {
  '@strands-agents/sdk': '1.19.0',
  genkit: '1.42.0',
  '@genkit-ai/mcp': '1.42.0',
  '@cfworker/json-schema': '4.1.6',
};
/** What the frameworks build on, at the workspace's versions (what its lockfile chose). */
const WORKSPACE_PINNED = ['@modelcontextprotocol/sdk', '@modelcontextprotocol/client', '@modelcontextprotocol/core', 'zod', 'typescript', '@types/node'];
/** Round trips run with Node and with Bun (each file lists the transports it covers). */
const ROUND_TRIPS = ['ai-sdk.mjs', 'openai-agents.mjs', 'langchain.mjs'];
/** The same, for the frameworks of OWN_PROJECT_FRAMEWORKS (run in that project). */
const OWN_PROJECT_ROUND_TRIPS = ['strands.mjs', 'genkit.mjs'];
const TOOL_COUNT = 14;
/** What each README example must print. */
const README_OUTPUT = {
  'ai-sdk-client.mjs': (stdout) => stdout.includes('14 tools; read_media_file: image/png'),
  'openai-agents-client.mjs': (stdout) => stdout.includes('14 tools for librarian'),
  'langchain-client.mjs': (stdout) => stdout.includes('14 tools; read_text_file: hello from the media directory'),
};

const keep = process.argv.includes('--keep');
const { work, packs, project, media } = tempProject('mcp-msgpack-frameworks-');
const { run, fail, elapsed } = createSteps('test-frameworks', { project });

const tarballs = packPackages({ run, fail }, ['transport-msgpack', 'filesystem-media-server'], packs);

const workspaceVersion = (name) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
const pinned = [...Object.entries(FRAMEWORKS).map(([name, version]) => `${name}@${version}`), ...WORKSPACE_PINNED.map((name) => `${name}@${workspaceVersion(name)}`)];
writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'frameworks-consumer', private: true, type: 'module' }, null, 2));
run(`npm install the tarballs and ${pinned.join(' ')}`, npm, ['install', '--no-audit', '--no-fund', '--no-package-lock', ...tarballs, ...pinned], { timeoutMs: 300_000 });
cpSync(join(root, 'scripts', 'frameworks'), project, { recursive: true, filter: (source) => !source.endsWith('README.md') });

const ownProject = join(work, 'project-strands-genkit');
mkdirSync(ownProject);
writeFileSync(join(ownProject, 'package.json'), JSON.stringify({ name: 'frameworks-consumer-2', private: true, type: 'module' }, null, 2));
const ownPinned = [...Object.entries(OWN_PROJECT_FRAMEWORKS).map(([name, version]) => `${name}@${version}`), ...['@modelcontextprotocol/sdk', 'zod'].map((name) => `${name}@${workspaceVersion(name)}`)];
run(`npm install (own project) the tarballs and ${ownPinned.join(' ')}`, npm, ['install', '--no-audit', '--no-fund', '--no-package-lock', '--legacy-peer-deps', '--omit=optional', ...tarballs, ...ownPinned], {
  cwd: ownProject,
  timeoutMs: 300_000,
});
cpSync(join(root, 'scripts', 'frameworks'), ownProject, { recursive: true, filter: (source) => !/(README\.md|types\.ts|tsconfig\.json)$/.test(source) });

run(
  'tsc -p . (types.ts: our transports and OpenAIAgentsMcpServer where each framework takes them, strict)',
  process.execPath,
  [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'],
  { timeoutMs: 120_000 },
);

const png = writeTestPng(join(media, 'pixel.png'));
writeFileSync(join(media, 'hello.txt'), 'hello from the media directory\n');

const serverBin = join(project, 'node_modules', 'mcp-filesystem-media-server', 'bin', 'mcp-filesystem-media-server.js');
process.stdout.write('test-frameworks: the media server over HTTP (--http 0) ... ');
let server;
let url;
const printsUrl = (output) => (url = /^(http:\/\/\S+\/mcp)$/m.exec(output)?.[1]) !== undefined;
try {
  server = await startProcess(process.execPath, [serverBin, '--http', '0', media], printsUrl, { cwd: project });
} catch (error) {
  fail(`the media server over HTTP did not start: ${error.message}`);
}
// A failed step exits at once (fail() calls process.exit): the server must not outlive this script.
process.once('exit', () => server.kill('SIGKILL'));
try {
  console.log(`ok (${url})`);
  const env = { MEDIA_DIR: media, MEDIA_URL: url };

  const bun = bunBinary();
  if (!bun && process.env.CI === 'true') fail('Bun is not installed in the workspace (the `bun` devDependency): CI must have it');
  for (const file of ROUND_TRIPS) {
    run(`node ${file}`, process.execPath, [file], { env, timeoutMs: 90_000 });
    if (bun) run(`bun ${file}`, bun, [file], { env, timeoutMs: 90_000 });
  }
  for (const file of OWN_PROJECT_ROUND_TRIPS) {
    run(`node ${file}`, process.execPath, [file], { cwd: ownProject, env, timeoutMs: 90_000 });
    if (bun) run(`bun ${file}`, bun, [file], { cwd: ownProject, env, timeoutMs: 90_000 });
  }
  // The transport README's "With agent frameworks" blocks, as written, run in the media directory.
  await runReadmeExamples(
    { run, fail },
    'test-frameworks',
    media,
    README_OUTPUT,
    bun
      ? {
          runtimes: [
            ['node', process.execPath],
            ['bun', bun],
          ],
        }
      : {},
  );
  inspector([process.execPath, serverBin, media], 'stdio', env);
  inspector([url], 'HTTP', env);
} finally {
  await stopProcess(server);
}

if (!keep) rmSync(work, { recursive: true, force: true });
console.log(`test-frameworks: the AI SDK, OpenAI Agents, LangChain, Strands, Genkit and the Inspector CLI use the packed packages (${elapsed()})`);

/** The MCP Inspector's CLI, a stock JSON client, against `target` (a command or a URL). */
function inspector(target, label, env) {
  const cli = (args, step, check) =>
    run(`Inspector CLI over ${label}: ${step}`, process.execPath, [join(project, 'node_modules', '.bin', 'mcp-inspector'), '--cli', ...target, ...args], {
      env: { ...env, MCP_CATALOG_PATH: join(work, 'inspector-catalog.json') },
      timeoutMs: 60_000,
      check: (stdout) => {
        let result;
        try {
          result = JSON.parse(stdout);
        } catch {
          return 'the output is not one JSON document';
        }
        return check(result) ? undefined : 'unexpected answer (see below)';
      },
    });
  cli(['--method', 'tools/list'], 'tools/list', (r) => r.tools?.length === TOOL_COUNT && r.tools.some((t) => t.name === 'read_media_file'));
  cli(
    ['--method', 'tools/call', '--tool-name', 'read_text_file', '--tool-arg', `path=${join(media, 'hello.txt')}`],
    'tools/call read_text_file',
    (r) => r.content?.[0]?.text === 'hello from the media directory\n',
  );
  cli(['--method', 'tools/call', '--tool-name', 'read_media_file', '--tool-arg', `path=${join(media, 'pixel.png')}`], 'tools/call read_media_file (base64 to a JSON client)', (r) => {
    const image = r.content?.[0];
    return image?.type === 'image' && image.mimeType === 'image/png' && Buffer.from(image.data, 'base64').equals(png);
  });
}
