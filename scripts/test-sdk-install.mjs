// Proves the packed transport works for a user of either SDK generation alone. Packs
// packages/transport-msgpack, then for each generation makes a throw-away project outside the workspace,
// installs from the registry ONLY that SDK (v2: @modelcontextprotocol/server + /client + /core; v1:
// @modelcontextprotocol/sdk) with zod, TypeScript and the tarball, checks the other generation is absent, and
// runs there: a stdio and an HTTP round trip through `import` and through `require` (Node, and Bun when the
// workspace has it), and a strict `tsc --noEmit` (no skipLibCheck) of files using the transports and
// callToolNative with that SDK's Client, through both the ESM and the CommonJS .d.ts. Then the done-when
// matrix (matrix.mjs, Node and Bun): on stdio and HTTP, every pairing of {the SDK's own transport, ours} x
// {client, server}, on each revision that generation's Client negotiates (v2: 2025-11-25, 2026-07-28 pinned
// and auto; v1: 2025-11-25), native bytes used exactly when both ends are ours. It also refuses a
// tarball whose .js or .d.ts import an SDK statically. Nothing is taken from the workspace's node_modules
// but the Bun binary that runs the Bun pass. Versions of the SDKs, zod, TypeScript and @types/node: the
// workspace's own (so npm's cache usually has them).
//   node scripts/test-sdk-install.mjs [v1|v2]
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bunBinary } from './lib/packed.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const templates = join(root, 'scripts', 'sdk-install');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const started = Date.now();

/** The version the workspace has installed of `name` (what its lockfile chose). */
function workspaceVersion(name) {
  return JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
}

const GENERATIONS = {
  v1: { sdk: ['@modelcontextprotocol/sdk'], absent: ['@modelcontextprotocol/server', '@modelcontextprotocol/client', '@modelcontextprotocol/core'] },
  v2: { sdk: ['@modelcontextprotocol/server', '@modelcontextprotocol/client', '@modelcontextprotocol/core'], absent: ['@modelcontextprotocol/sdk'] },
};
const only = process.argv[2];
if (only !== undefined && !(only in GENERATIONS)) {
  console.error('usage: node scripts/test-sdk-install.mjs [v1|v2]');
  process.exit(2);
}

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit', env: { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false' } });
  if (result.status !== 0) {
    console.error(`sdk-install: \`${command} ${args.join(' ')}\` failed in ${cwd}`);
    process.exit(result.status ?? 1);
  }
}

const work = mkdtempSync(join(tmpdir(), 'mcp-msgpack-sdk-install-'));
try {
  run(npm, ['pack', '--silent', '--pack-destination', work, '--workspace', 'packages/transport-msgpack'], root);
  const tarball = join(
    work,
    readdirSync(work).find((name) => name.endsWith('.tgz')),
  );
  const bun = bunBinary();

  for (const [generation, { sdk, absent }] of Object.entries(GENERATIONS)) {
    if (only && generation !== only) continue;
    const project = join(work, generation);
    cpSync(templates, project, { recursive: true, filter: (source) => !/^[/\\]v[12]([/\\]|$)/.test(source.slice(templates.length)) });
    cpSync(join(templates, generation), project, { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: `sdk-install-${generation}`, private: true, type: 'module' }, null, 2));
    const packages = [...sdk, 'zod', 'typescript', '@types/node'].map((name) => `${name}@${workspaceVersion(name)}`);
    run(npm, ['install', '--no-audit', '--no-fund', '--no-package-lock', tarball, ...packages], project);

    for (const name of absent) {
      if (existsSync(join(project, 'node_modules', name))) throw new Error(`${generation} project: ${name} is installed, the check would prove nothing`);
    }
    refuseStaticSdkImports(join(project, 'node_modules', 'mcp-msgpack-transport', 'dist'));

    run(process.execPath, ['roundtrip.mjs'], project);
    run(process.execPath, ['roundtrip.cjs'], project);
    run(process.execPath, ['matrix.mjs'], project);
    if (bun) {
      run(bun, ['roundtrip.mjs'], project);
      run(bun, ['roundtrip.cjs'], project);
      run(bun, ['matrix.mjs'], project);
    }
    run(process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], project);
    console.log(`ok: SDK ${generation} alone: tsc --noEmit (strict, no skipLibCheck) of the ESM and CommonJS types`);
  }
  console.log(`sdk-install: passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** No .js or .d.ts of the package may import an SDK statically (a lazy `import()` is how it loads one). */
function refuseStaticSdkImports(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      refuseStaticSdkImports(path);
      continue;
    }
    if (!/\.js$|\.d\.ts$/.test(name)) continue;
    // TypeScript's CommonJS form of a lazy import() is a require() inside a promise: that one is allowed.
    const text = readFileSync(path, 'utf8').replaceAll('Promise.resolve().then(() => __importStar(require(', 'lazy((');
    const imports = /\bfrom\s*['"]@modelcontextprotocol\/|\brequire\(\s*['"]@modelcontextprotocol\//.test(text);
    const typeImports = name.endsWith('.d.ts') && /\bimport\(\s*['"]@modelcontextprotocol\//.test(text);
    if (imports || typeImports) throw new Error(`${path} imports an MCP SDK statically`);
  }
}
