// `npm run conformance:client`: the MCP conformance runner's CLIENT scenarios, played by this repository's
// conformance client (examples/conformance-client/client.mjs) once with the SDK's own StreamableHTTPClientTransport (the control) and
// once with HttpMsgpackClientTransport, and the two compared. Legs (revision, SDK generation of the Client):
// 2025-11-25 with SDK v1, 2025-11-25 with SDK v2 (its default, legacy connect), 2026-07-28 with SDK v2.
// Per leg, every scenario the revision's requirement set lists (scored and not scored), with OAuth done
// two ways: `fetch` (outside the transport, a fetch wrapper) and `provider` (the transport's own
// authProvider + finishAuth; only the auth/* scenarios are counted there, the others are the same runs).
//   node tools/conformance/client-run.mjs [--leg 2026-07-28/v2] [--auth fetch|provider] [--subset ci]
// A scenario run fails when any of its checks fails or warns. A failed run is run once more on its own
// (the machine may be loaded) before it counts. Exit status 1 when ours fails a run the SDK's transport
// passes, or any run fails that client-expected-failures.json does not list (each entry says why);
// an entry that now passes is reported as stale, and fails the run too, so the list stays true.
// `--subset ci` (CI's step): the legs 2025-11-25/v1 and 2026-07-28/v2, every scenario of each (all auth/*
// and the basics among them), both auth modes; it leaves out 2025-11-25/v2, whose runs repeat v2's OAuth
// flow at the older revision (on the loaded 2-core machine the full run took 264-423 s, the subset 185-327 s;
// docs/MEASUREMENTS.md).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const runner = join(here, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
// The runner needs Node 22: from the repository's Node installer when it has one (scripts/lib/node-versions.mjs),
// else the `node@22` package this directory pinned before it.
const nodeInstaller = join(root, 'scripts', 'lib', 'node-versions.mjs');
const pinnedNode22 = join(here, 'node_modules', 'node', 'bin', 'node');
const argValue = (name) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const LEGS = [
  { revision: '2025-11-25', sdk: 'v1' },
  { revision: '2025-11-25', sdk: 'v2' },
  { revision: '2026-07-28', sdk: 'v2' },
];
const subset = argValue('subset');
if (subset !== undefined && subset !== 'ci') {
  console.error('conformance:client: --subset takes ci');
  process.exit(2);
}
const CI_LEGS = new Set(['2025-11-25/v1', '2026-07-28/v2']);
const legs = LEGS.filter((leg) => {
  const name = `${leg.revision}/${leg.sdk}`;
  return (argValue('leg') === undefined || name === argValue('leg')) && (subset !== 'ci' || CI_LEGS.has(name));
});
const modes = ['fetch', 'provider'].filter((mode) => argValue('auth') === undefined || mode === argValue('auth'));
const TIMEOUT_MS = '90000';
const started = Date.now();

function step(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`conformance:client: \`${command} ${args.join(' ')}\` failed`);
    process.exit(result.status ?? 1);
  }
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const pinned = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')).devDependencies['@modelcontextprotocol/conformance'];
const installed = existsSync(runner) ? JSON.parse(readFileSync(join(runner, '..', '..', 'package.json'), 'utf8')).version : undefined;
if (installed !== pinned || (!existsSync(nodeInstaller) && !existsSync(pinnedNode22))) step(npm, ['ci', '--prefix', here, '--no-audit', '--no-fund']);
step(npm, ['run', 'build', '--workspace', 'packages/transport-msgpack']);
const node22 = existsSync(nodeInstaller) ? (await import(pathToFileURL(nodeInstaller).href)).nodeBinary('22') : pinnedNode22;

/** Runs the runner; resolves with its stdout. */
function runRunner(args) {
  return new Promise((resolve) => {
    const child = spawn(node22, [runner, 'client', ...args, '--timeout', TIMEOUT_MS], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.on('close', () => resolve(output));
  });
}

const command = (transport, mode, sdk) => `${process.execPath} ${join('examples', 'conformance-client', 'client.mjs')} --transport ${transport} --auth ${mode} --sdk ${sdk}`;

/** Every scenario's verdict in a suite run: name -> passed (no check failed or warned). */
function suiteVerdicts(output) {
  const verdicts = new Map();
  for (const match of output.matchAll(/^([✓✗]) (\S+): \d+ passed, \d+ failed/gm)) verdicts.set(match[2], match[1] === '✓');
  return verdicts;
}

/** One scenario on its own: passed when its checks show no failure and no warning. */
async function single(transport, mode, leg, scenario) {
  const output = await runRunner(['--command', command(transport, mode, leg.sdk), '--scenario', scenario, '--spec-version', leg.revision, '--force']);
  const match = /Passed: \d+\/\d+, (\d+) failed, (\d+) warnings/.exec(output);
  return match !== null && match[1] === '0' && match[2] === '0';
}

async function suite(transport, mode, leg) {
  const verdicts = suiteVerdicts(await runRunner(['--command', command(transport, mode, leg.sdk), '--requirements', leg.revision]));
  // Through authProvider only the OAuth scenarios differ from the fetch mode's runs.
  if (mode === 'provider') for (const name of [...verdicts.keys()]) if (!name.startsWith('auth/')) verdicts.delete(name);
  for (const [name, passed] of verdicts) if (!passed) verdicts.set(name, await single(transport, mode, leg, name));
  return verdicts;
}

const expected = JSON.parse(readFileSync(join(here, 'client-expected-failures.json'), 'utf8')).failures;
const expectedFor = (leg, mode, transport, scenario) =>
  expected.find(
    (entry) =>
      entry.scenario === scenario &&
      entry.transports.includes(transport) &&
      (entry.revision === undefined || entry.revision === leg.revision) &&
      (entry.sdk === undefined || entry.sdk === leg.sdk) &&
      (entry.auth === undefined || entry.auth === mode),
  );

const problems = [];
const counts = { runs: 0, sdkPassed: 0, oursPassed: 0 };
for (const leg of legs) {
  for (const mode of modes) {
    const label = `${leg.revision} SDK ${leg.sdk} auth=${mode}`;
    // One after the other: each suite already runs its scenarios in parallel.
    const sdk = await suite('sdk', mode, leg);
    const ours = await suite('ours', mode, leg);
    const names = [...new Set([...sdk.keys(), ...ours.keys()])].sort();
    const line = [];
    for (const name of names) {
      counts.runs++;
      const verdict = { sdk: sdk.get(name) ?? false, ours: ours.get(name) ?? false };
      if (verdict.sdk) counts.sdkPassed++;
      if (verdict.ours) counts.oursPassed++;
      for (const transport of ['sdk', 'ours']) {
        const listed = expectedFor(leg, mode, transport, name);
        if (!verdict[transport] && !listed) {
          const behind = transport === 'ours' && verdict.sdk ? ' (the SDK transport passes it)' : '';
          problems.push(`${label}: ${name} fails with ${transport === 'ours' ? 'HttpMsgpackClientTransport' : "the SDK's transport"}${behind}, not listed as expected`);
        }
        if (verdict[transport] && listed) problems.push(`${label}: ${name} passes with ${transport} now: remove its entry from client-expected-failures.json (stale)`);
      }
      if (!verdict.sdk || !verdict.ours) line.push(`${name} (sdk ${verdict.sdk ? 'pass' : 'FAIL'}, ours ${verdict.ours ? 'pass' : 'FAIL'})`);
    }
    const sdkPassed = [...sdk.values()].filter(Boolean).length;
    const oursPassed = [...ours.values()].filter(Boolean).length;
    console.log(`conformance:client: ${label}: SDK transport ${sdkPassed}/${sdk.size}, ours ${oursPassed}/${ours.size}`);
    for (const entry of line) console.log(`  ${entry}`);
  }
}
const seconds = ((Date.now() - started) / 1000).toFixed(1);
console.log(`conformance:client: ${counts.runs} scenario runs per transport; SDK transport passed ${counts.sdkPassed}, ours ${counts.oursPassed} (${seconds} s)`);
if (problems.length > 0) {
  for (const problem of problems) console.error(`conformance:client: ${problem}`);
  console.error('conformance:client: FAILED');
  process.exit(1);
}
console.log('conformance:client: passed');
