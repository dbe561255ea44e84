// `npm run test:node-versions`: the Node suite of `npm test` (scripts/run-tests.mjs node) on each Node.js line
// this repository supports (scripts/lib/node-versions.mjs: the oldest version `engines` admits, 20.18.1, and
// the LTS lines 22, 24 and 26), each installed from npm into .cache/node/ on first use. The tests compiled
// once (`npm run build`) run unchanged on each; the version's bin/ comes first on PATH and tests start their
// servers with process.execPath, so what they spawn runs on the same Node.
//   node scripts/test-node-versions.mjs [floor|22|24|26 ...] [-- filter]   (default: every version, every test)
// One log per version (.cache/test-logs/node-<version>.log); each version's closing line and time are
// printed again at the end. Exit status: 0 when every version passed.
import { spawnSync } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';
import { NODE_VERSIONS, nodeBinary } from './lib/node-versions.mjs';

const root = new URL('..', import.meta.url).pathname;
const dash = process.argv.indexOf('--');
const chosen = (dash < 0 ? process.argv.slice(2) : process.argv.slice(2, dash)).map(String);
const filter = dash < 0 ? [] : process.argv.slice(dash + 1);
const unknown = chosen.filter((key) => !(key in NODE_VERSIONS));
if (unknown.length > 0) {
  console.error(`test-node-versions: unknown version ${unknown.join(', ')}; choose from ${Object.keys(NODE_VERSIONS).join(', ')}`);
  process.exit(2);
}

const results = [];
// The floor first, then the LTS lines oldest first (an object lists integer-like keys before others).
const everyVersion = Object.keys(NODE_VERSIONS).sort((a, b) => (a === 'floor' ? -1 : b === 'floor' ? 1 : Number(a) - Number(b)));
for (const key of chosen.length > 0 ? chosen : everyVersion) {
  const version = NODE_VERSIONS[key];
  const node = nodeBinary(key);
  const logName = `node-${version}`;
  console.log(`test-node-versions: Node ${version} (${key})`);
  const started = Date.now();
  const run = spawnSync(node, [join(root, 'scripts', 'run-tests.mjs'), 'node', ...filter], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    env: { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}`, MCP_MSGPACK_TEST_LOG_NAME: logName },
  });
  process.stdout.write(run.stdout ?? '');
  const closing = (run.stdout ?? '').match(/^\d+ passed, \d+ failed, \d+ skipped$/m)?.[0] ?? `no summary (status ${run.status ?? run.signal})`;
  results.push({ version, key, ok: run.status === 0, closing, seconds: Math.round((Date.now() - started) / 1000) });
}

console.log('test-node-versions: the Node suite on each version');
for (const { version, key, ok, closing, seconds } of results) console.log(`  Node ${version} (${key}): ${closing} in ${seconds} s${ok ? '' : ' FAILED'}`);
process.exit(results.every(({ ok }) => ok) ? 0 : 1);
