// Server CPU per call over stdio for our three ways of talking to our own server: JSON lines only (client
// wire 'json'), frames only (client wire 'msgpack'), and the mixed stream (client wire 'auto', both sides on
// encoding 'cheapest-cpu', SPEC.md 7.4). The server's CPU time is the sum of its threads' run time in
// /proc/PID/task/*/schedstat (nanoseconds; /proc/PID/stat counts 10 ms ticks, too coarse for small calls);
// variants alternate round by round.
//   node packages/bench/measure/measure-stdio-mixed.mjs [rounds=7] [calls=2000]      (bun scripts/... for Bun; Linux only)
// The server is the test fixture packages/transport-msgpack/build/test/fixtures/stdio-server.js, run under the
// same runtime as this script (npm run build first). Prints per-variant medians and the medians of the
// per-round ratios against JSON lines and against frames.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioMsgpackClientTransport } from 'mcp-msgpack-transport';

const rounds = Number(process.argv[2] ?? 7);
const calls = Number(process.argv[3] ?? 2000);
const SERVER = fileURLToPath(new URL('../../transport-msgpack/build/test/fixtures/stdio-server.js', import.meta.url));

const variants = {
  json: { wire: 'json' },
  msgpack: { wire: 'msgpack' },
  mixed: { wire: 'auto', encoding: 'cheapest-cpu' },
};
const cases = {
  'small call': (i) => ({ name: 'echo', arguments: { text: `ok bench ${i}` } }),
  'text 64 KB': () => ({ name: 'echo', arguments: { text: 'diff line ✓\n'.repeat(5000) } }),
};

/** The process's CPU time in ms: every thread's time on a CPU, from /proc (Linux). */
function cpuMs(pid) {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return ns / 1e6;
}

async function connect(options) {
  const transport = new StdioMsgpackClientTransport({ command: process.execPath, args: [SERVER], ...options });
  const client = new Client({ name: 'measure-stdio-mixed', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const runtimeName = typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node ${process.versions.node}`;
console.log(`${runtimeName}: ${rounds} interleaved rounds of ${calls} calls per variant and case (server CPU per call)`);

const sessions = {};
for (const [name, options] of Object.entries(variants)) sessions[name] = await connect(options);
try {
  for (const [caseName, params] of Object.entries(cases)) {
    const n = caseName === 'small call' ? calls : Math.max(50, Math.floor(calls / 5));
    const perCall = Object.fromEntries(Object.keys(variants).map((v) => [v, []]));
    // Warm-up: each variant's JIT and buffers settle before anything is counted.
    for (const { client } of Object.values(sessions)) for (let i = 0; i < n / 4; i++) await client.callTool(params(i));
    for (let round = 0; round < rounds; round++) {
      for (const [name, { client, pid }] of Object.entries(sessions)) {
        const before = cpuMs(pid);
        for (let i = 0; i < n; i++) await client.callTool(params(i));
        perCall[name].push(((cpuMs(pid) - before) * 1000) / n);
      }
    }
    const ratio = (a, b) => median(perCall[a].map((x, i) => x / perCall[b][i]));
    const us = (name) => `${median(perCall[name]).toFixed(1)} µs`;
    console.log(
      `${caseName} (${n} calls/round): json ${us('json')}, msgpack ${us('msgpack')}, mixed ${us('mixed')}; mixed/json ${ratio('mixed', 'json').toFixed(2)}x, mixed/msgpack ${ratio('mixed', 'msgpack').toFixed(2)}x, msgpack/json ${ratio('msgpack', 'json').toFixed(2)}x`,
    );
  }
} finally {
  for (const { client } of Object.values(sessions)) await client.close();
}
