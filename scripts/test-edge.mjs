// Proves the transport package runs where MCP is deployed beyond Node and Bun, from its packed tarball:
// packs it, installs the tarball with SDK v2 and zod (the workspace's versions) and pinned edge tools into
// an empty project outside the workspace, copies scripts/edge/ there, and runs:
//   - Cloudflare Workers (run-workers.mjs): a Worker serving an SDK v2 McpServer through WebMcpHttpHandler,
//     bundled as wrangler would (workerd conditions), run in workerd by miniflare without and with
//     nodejs_compat, called from Node by our client (MessagePack, native bytes) and by the SDK's (JSON);
//   - Deno (deno.mjs, the `deno` npm package): Deno.serve with the handler, called by both clients in Deno;
//   - a browser (run-browser.mjs): both clients bundled for the browser, run in headless Chromium (Debian's
//     `chromium`, or $CHROMIUM), calling a Node server on another origin with CORS.
// Each check lists the tools, calls a text tool and a 100 KiB image tool, and compares every byte; the
// bundles are checked for Node-only modules and their sizes printed (the package README quotes them).
// Usage: node scripts/test-edge.mjs [--keep]   (after `npm run build`; --keep leaves the project in place)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The edge tools, pinned: a new version is a deliberate change here.
const TOOLS = { miniflare: '4.20260730.0', deno: '2.9.6', 'playwright-core': '1.65.1', esbuild: '0.28.2' };

const root = new URL('..', import.meta.url).pathname;
const keep = process.argv.includes('--keep');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const work = mkdtempSync(join(tmpdir(), 'mcp-msgpack-edge-'));
const project = join(work, 'project');
const started = Date.now();

/** The version the workspace has installed of `name` (what its lockfile chose). */
const workspaceVersion = (name) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;

/** Runs one step, printing its output; on failure says which step and exits 1 (the project is kept). */
function run(step, command, args, { timeoutMs = 120_000, env = {} } = {}) {
  console.log(`test-edge: ${step}`);
  const result = spawnSync(command, args, { cwd: project, encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, npm_config_yes: 'false', ...env } });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trimEnd();
  let problem;
  if (result.error?.code === 'ETIMEDOUT') problem = `did not finish within ${timeoutMs / 1000} s`;
  else if (result.error) problem = result.error.message;
  else if (result.status !== 0) problem = `exited with ${result.status ?? result.signal}`;
  if (problem) {
    console.error(`${output}\n\ntest-edge FAILED: ${step}: ${problem}\n$ (cd ${project} && ${command} ${args.join(' ')})\n(project kept in ${project})`);
    process.exit(1);
  }
  if (step.startsWith('npm')) console.log(`  ok (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  else console.log(output.replace(/^/gm, '  '));
  return result.stdout;
}

if (!existsSync(join(root, 'packages', 'transport-msgpack', 'dist'))) {
  console.error('packages/transport-msgpack/dist is missing: run `npm run build` first');
  process.exit(1);
}
mkdirSync(project, { recursive: true });
const packed = spawnSync(npm, ['pack', '--pack-destination', work], { cwd: join(root, 'packages', 'transport-msgpack'), encoding: 'utf8' });
const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
if (packed.status !== 0 || !tarball) {
  console.error(`npm pack failed:\n${packed.stdout}${packed.stderr}`);
  process.exit(1);
}
writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'edge-consumer', private: true, type: 'module' }, null, 2));
const sdk = workspaceVersion('@modelcontextprotocol/server');
run(
  'npm install the tarball, SDK v2, zod and the edge tools',
  npm,
  [
    'install',
    '--no-audit',
    '--no-fund',
    join(work, tarball),
    `@modelcontextprotocol/server@${sdk}`,
    `@modelcontextprotocol/client@${workspaceVersion('@modelcontextprotocol/client')}`,
    `zod@${workspaceVersion('zod')}`,
    ...Object.entries(TOOLS).map(([name, version]) => `${name}@${version}`),
  ],
  { timeoutMs: 300_000 },
);
cpSync(join(root, 'scripts', 'edge'), project, { recursive: true });

run('Cloudflare Workers (workerd, by miniflare)', process.execPath, ['run-workers.mjs']);
run('Deno', join(project, 'node_modules', '.bin', 'deno'), ['run', '--allow-net', '--allow-read', '--allow-env', '--allow-sys', 'deno.mjs'], {
  env: { DENO_DIR: join(work, 'deno-dir'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
});
run('a browser (headless Chromium)', process.execPath, ['run-browser.mjs']);

if (!keep) rmSync(work, { recursive: true, force: true });
console.log(`test-edge: Workers, Deno and Chromium served and called from the packed tarball (${((Date.now() - started) / 1000).toFixed(0)} s)`);
