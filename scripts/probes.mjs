// The shared probe set (fixtures/probes/) against the TypeScript and Python servers, side by side:
//   node scripts/probes.mjs [--server ts-stdio,ts-http,py-stdio,py-http] [--runtime node|bun] [--flood N]
//                           [--only SUBSTRING] [--verbose] [--json FILE]
// Prints the matrix (case x server: pass, expected-fail, FAIL, UNEXPECTED-PASS) and exits non-zero when any server
// breaks a promise its expected-failures list does not name, or keeps one the list says it breaks.
// --runtime runs the TS server on that runtime (default: the one running this script); --flood N holds N idle and
// N partial-header connections (default: the corpus's 200 + 200). The Python server needs the venv that
// scripts/test-python.sh makes (or MCP_MSGPACK_PYTHON).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { available, runProbes, SERVERS } from './lib/probes/run.mjs';

const { values } = parseArgs({
  options: {
    server: { type: 'string', default: SERVERS.join(',') },
    runtime: { type: 'string' },
    flood: { type: 'string' },
    only: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});

const names = values.server.split(',').map((s) => s.trim());
for (const name of names) if (!SERVERS.includes(name)) throw new Error(`unknown server ${name} (${SERVERS.join(', ')})`);
const runtimeName = values.runtime ?? (typeof globalThis.Bun !== 'undefined' ? 'bun' : 'node');
const runtime = values.runtime === 'bun' ? bunExecutable() : values.runtime === 'node' ? 'node' : process.execPath;
const flood = values.flood ? { idle: Number(values.flood), partialHeaders: Number(values.flood) } : undefined;

const runs = [];
for (const name of names) {
  const missing = available(name);
  if (missing) {
    console.error(`${name}: skipped: ${missing}`);
    process.exitCode = 1;
    continue;
  }
  const run = await runProbes(name, { runtime, runtimeName, flood, only: values.only });
  runs.push(run);
  const failed = run.results.filter((r) => !r.pass).length;
  console.log(`${name}${name.startsWith('ts-') ? ` (${runtimeName})` : ''}: ${run.results.length} cases, ${run.results.length - failed} pass, ${failed} fail, in ${(run.ms / 1000).toFixed(1)} s`);
  for (const r of run.results) if (r.note) console.log(`  ${r.id}: ${r.note}`);
  for (const problem of run.verdict.problems) console.log(`  ${problem}`);
  if (values.verbose) for (const r of run.results) if (!r.pass) console.log(`  (expected) ${r.id}: ${r.detail}`);
  if (!run.verdict.ok) process.exitCode = 1;
}

printMatrix(runs);
if (values.json) writeFileSync(values.json, JSON.stringify(runs, null, 2));

/** One row a case, one column a server: only the rows where some server does not simply pass, then a count. */
function printMatrix(list) {
  if (list.length === 0) return;
  const ids = [...new Set(list.flatMap((run) => run.verdict.rows.map((row) => row.id)))];
  const outcome = (run, id) => run.verdict.rows.find((row) => row.id === id)?.outcome ?? '-';
  const width = Math.max(...ids.map((id) => id.length));
  const interesting = ids.filter((id) => list.some((run) => outcome(run, id) !== 'pass' && outcome(run, id) !== '-'));
  console.log(`\n${'case'.padEnd(width)}  ${list.map((run) => run.name.padEnd(15)).join(' ')}`);
  for (const id of interesting) console.log(`${id.padEnd(width)}  ${list.map((run) => outcome(run, id).padEnd(15)).join(' ')}`);
  console.log(`(${ids.length - interesting.length} more cases pass on every server run)`);
}

function bunExecutable() {
  const require = createRequire(import.meta.url);
  const bin = require.resolve('bun/package.json').replace(/package\.json$/, 'bin/bun.exe');
  return spawnSync(bin, ['--version']).status === 0 ? bin : 'bun';
}
