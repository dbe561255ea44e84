// Server CPU per call over stdio: one server, an SDK v1 McpServer (the benchmark's tool server) on this
// package's StdioMsgpackServerTransport with default options, called by several clients in interleaved rounds:
//   stock    the SDK's own StdioClientTransport (JSON lines, no upgrade offer: the server answers in JSON lines)
//   ours     our StdioMsgpackClientTransport on its defaults (wire 'auto', encoding 'cheapest-cpu': the
//            JSON-first upgrade, then a mixed stream, SPEC.md 7.4)
//   json     ours on wire 'json' (JSON lines only)
//   ours-json-policy  ours on its defaults but `encoding: 'json'` (not run by default): the mixed stream without
//            the client's per-message pick, to tell what the pick costs the client
//   msgpack  ours on wire 'msgpack' (frames only, from the first byte)
//   stock-again  another stock client and server (not run by default): the machine's noise floor
//   stock-paced  another stock client and server (not run by default), the client busy for --pace µs (default 20)
//            after each call: the same server bytes at a slower client's pace (the server's CPU per call
//            moves with the pace of its client: a client that costs more makes the server cost more)
// With --before ENTRY (another build's dist/esm/index.js), stock and ours also run against that build's server,
// as stock@before and ours@before, in the same rounds: a before / after comparison in one run.
// The server's CPU time is the sum of its threads' run time in /proc/PID/task/*/schedstat (nanoseconds, per thread;
// /proc/PID/stat counts 10 ms ticks, too coarse for small calls); the variants alternate round by round,
// each with its own server process.
//   node packages/bench/measure/measure-stdio-mixed.mjs [rounds=7] [calls=2000] [--cases small,text,object-50KB,object-1MB,numeric]
//        [--variants stock,ours,json,msgpack] [--before OTHER/packages/transport-msgpack/dist/esm/index.js]
//                                                               (bun packages/bench/measure/... for Bun; Linux only)
// `calls` is the small call's count per round; the larger payloads take fewer (see CASES). The server runs
// under the same runtime as this script (npm run build first). Prints per-variant medians (µs of server CPU
// per call) and, per case, each variant against the stock client: the median of the per-round ratios and
// their range (lowest-highest).
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioMsgpackClientTransport } from 'mcp-msgpack-transport';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    cases: { type: 'string', default: 'small,text,object-50KB,object-1MB,numeric' },
    variants: { type: 'string', default: 'stock,ours,json,msgpack' },
    before: { type: 'string' },
    pace: { type: 'string', default: '20' },
  },
});
const rounds = Number(positionals[0] ?? 7);
const calls = Number(positionals[1] ?? 2000);
const SERVER = fileURLToPath(new URL('./lib/stdio-tool-server.mjs', import.meta.url));
const SERVER_ARGS = [SERVER];
const BEFORE_ARGS = [SERVER, flags.before ?? ''];

const stockClient = (args) => () => new StdioClientTransport({ command: process.execPath, args, stderr: 'inherit' });
const ourClient = (args, options) => () => new StdioMsgpackClientTransport({ command: process.execPath, args, ...options });
const VARIANTS = {
  stock: stockClient(SERVER_ARGS),
  // A second stock client on a server of its own: the noise floor (stock-again/stock is 1.00x but for the machine).
  'stock-again': stockClient(SERVER_ARGS),
  'stock-paced': stockClient(SERVER_ARGS),
  ours: ourClient(SERVER_ARGS),
  json: ourClient(SERVER_ARGS, { wire: 'json' }),
  'ours-json-policy': ourClient(SERVER_ARGS, { encoding: 'json' }),
  msgpack: ourClient(SERVER_ARGS, { wire: 'msgpack' }),
  'stock@before': stockClient(BEFORE_ARGS),
  'ours@before': ourClient(BEFORE_ARGS),
};

/** The benchmark's call scenarios (packages/bench/src/scenarios): the tool, its arguments, a check, and calls per round as a share of `calls`. */
const CASES = {
  small: { share: 1, call: (i) => ['small', { n: i, tag: 'bench' }], check: (r, i) => r.content[0].text === `ok bench ${i}` },
  text: { title: 'text 64 KB', share: 1 / 10, call: () => ['text_result', { kind: 'diff', bytes: 64 * 1024 }], check: (r) => r.content[0].text.length === 64 * 1024 },
  'object-50KB': { share: 1 / 10, call: () => ['review_context', { bytes: 50_000 }], check: (r) => r.structuredContent.files.length > 0 },
  'object-1MB': { share: 1 / 200, call: () => ['review_context', { bytes: 1_000_000 }], check: (r) => r.structuredContent.files.length > 0 },
  numeric: { title: 'numeric (embedding)', share: 1 / 20, call: () => ['numeric_result', { kind: 'embedding' }], check: (r) => r.structuredContent.embedding.length === 1536 },
};

/** Each thread's time on a CPU so far, in ns, by thread id, from /proc (Linux). */
function threadTimes(pid) {
  const times = new Map();
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      times.set(task, Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return times;
}

/**
 * The process's CPU time in ms between two threadTimes(): per thread, so that a thread ending in between
 * (Bun's helper threads come and go) loses only its time in the round, not its whole life from the sum.
 */
function cpuMsBetween(before, after) {
  let ns = 0;
  for (const [task, time] of after) ns += time - (before.get(task) ?? 0);
  return ns / 1e6;
}

async function connect(name) {
  const transport = VARIANTS[name]();
  const client = new Client({ name: 'measure-stdio-mixed', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

/** The client's pause after each call, in ms of busy CPU: only stock-paced has one. */
const PACE_MS = { 'stock-paced': Number(flags.pace) / 1000 };

async function callTimes(client, testCase, n, paceMs = 0) {
  for (let i = 0; i < n; i++) {
    const [name, args] = testCase.call(i);
    const result = await client.callTool({ name, arguments: args });
    if (result.isError || !testCase.check(result, i)) throw new Error(`${name} returned an unexpected result: ${JSON.stringify(result).slice(0, 200)}`);
    if (paceMs > 0) for (const until = performance.now() + paceMs; performance.now() < until; );
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const variantNames = flags.variants.split(',');
if (flags.before) variantNames.push('stock@before', 'ours@before');
for (const name of variantNames) if (!VARIANTS[name]) throw new Error(`unknown variant ${name} (known: ${Object.keys(VARIANTS).join(', ')})`);
const caseNames = flags.cases.split(',');
for (const name of caseNames) if (!CASES[name]) throw new Error(`unknown case ${name} (known: ${Object.keys(CASES).join(', ')})`);
const runtimeName = typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node ${process.versions.node}`;
console.log(`${runtimeName}: ${rounds} interleaved rounds per case, variants ${variantNames.join(', ')} (server CPU per call; ratios: median of the rounds' ratios (lowest-highest))`);

const sessions = {};
for (const name of variantNames) sessions[name] = await connect(name);
try {
  for (const caseName of caseNames) {
    const testCase = CASES[caseName];
    const n = Math.max(10, Math.round(calls * testCase.share));
    const perCall = Object.fromEntries(variantNames.map((v) => [v, []]));
    const clientPerCall = Object.fromEntries(variantNames.map((v) => [v, []]));
    const wallPerCall = Object.fromEntries(variantNames.map((v) => [v, []]));
    // Warm-up: each variant's JIT and buffers settle before anything is counted.
    for (const name of variantNames) await callTimes(sessions[name].client, testCase, Math.ceil(n / 4));
    for (let round = 0; round < rounds; round++) {
      // The order turns each round, so no variant always runs right after the same other one.
      for (let k = 0; k < variantNames.length; k++) {
        const name = variantNames[(k + round) % variantNames.length];
        const { client, pid } = sessions[name];
        const before = threadTimes(pid);
        const clientBefore = process.cpuUsage();
        const wallBefore = performance.now();
        await callTimes(client, testCase, n, PACE_MS[name]);
        wallPerCall[name].push(((performance.now() - wallBefore) * 1000) / n);
        const clientCpu = process.cpuUsage(clientBefore);
        clientPerCall[name].push((clientCpu.user + clientCpu.system) / n);
        perCall[name].push((cpuMsBetween(before, threadTimes(pid)) * 1000) / n);
      }
    }
    const us = variantNames.map((name) => `${name} ${median(perCall[name]).toFixed(1)} µs`).join(', ');
    const client = variantNames.map((name) => `${name} ${median(clientPerCall[name]).toFixed(1)}`).join(', ');
    const wall = variantNames.map((name) => `${name} ${median(wallPerCall[name]).toFixed(1)}`).join(', ');
    const against = (name, base) => {
      const ratios = perCall[name].map((x, i) => x / perCall[base][i]);
      return `${name}/${base} ${median(ratios).toFixed(2)}x (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`;
    };
    const base = variantNames.includes('stock') ? 'stock' : variantNames[0];
    const ratios = variantNames.filter((name) => name !== base && !name.endsWith('@before')).map((name) => against(name, base));
    if (flags.before) ratios.push(against('ours@before', 'stock@before'));
    console.log(`${testCase.title ?? caseName} (${n} calls/round): server ${us}; ${ratios.join(', ')}`);
    console.log(`  client CPU µs per call: ${client}; wall µs per call: ${wall}`);
  }
} finally {
  for (const { client } of Object.values(sessions)) await client.close();
}
