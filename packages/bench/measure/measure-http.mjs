// Streamable HTTP, measured side by side in one run with alternating rounds: our server on MessagePack,
// our server on JSON, and the SDK's own Streamable HTTP server (JSON), for small, object-heavy (50 KB, 1 MB),
// text (a 64 KB diff), numeric (an embedding) and media (1, 5 MiB image, base64 on both wires) payloads, with
// 1 and 16 concurrent clients. Reports requests per second and server CPU time per call (the server runs in
// a child process; its CPU is read over IPC around each round), and each as a ratio to the SDK's server.
//
//   node packages/bench/measure/measure-http.mjs [--ms 1000] [--rounds 3] [--only small,objects-50KB] [--clients 1,16] [--json-response]
//        [--serve node|bun] [--stock-client] [--before CHECKOUT] [--defaults] [--threads] [--warmup 100]
// --json-response: our server answers each request in one body (enableJsonResponse), and a fourth
// configuration, 'ours adaptive', is our client on its default per-message encoding (SPEC.md 9.6); the
// 'ours msgpack' row is then a server of its own on `encoding: 'smallest'`, so its replies are MessagePack.
//   bun packages/bench/measure/measure-http.mjs   (servers and clients then run on Bun, servers on node:http)
// --serve bun (under bun; implies --json-response and --stock-client): the servers on Bun.serve as the
// benchmark's `--runtime bun` serves them, ours with listenBun, the SDK's web-standard transport in
// JSON-response mode. --stock-client: the SDK's server is called by the SDK's own client (as the benchmark's
// stock variant is), not by ours on its JSON wire.
// --before CHECKOUT: two more rows, 'before msgpack' and 'before json', our server from that checkout's build
// (its packages/transport-msgpack/dist/esm), in the same rounds, so a change is measured against the SDK's
// server and its own before in one run ('ours adaptive' is left out then).
// --defaults: our client on its defaults and the stock client, both calling one more server on the handler's
// defaults, in the same rounds (issue 30, item 3).
// --threads (Linux): each server's CPU per call by thread as well (/proc/PID/task/*/schedstat), and the ratio
// to the SDK's server without the JIT compiler threads (JavaScriptCore's `JITWorker` on Bun; on Node V8's
// background threads are all named `node`, so nothing is left out): a short run measures the engines'
// compiling as much as the requests, and the two servers do not compile the same code.
// Not a test: numbers depend on the machine. Loopback only.
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { PAYLOADS, forkMeasureServer } from './measure-http-server.mjs';
import { isJitThread, threadDelta, threadTimes } from './lib/thread-times.mjs';

const option = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
};
const ROUND_MS = Number(option('ms', '1000'));
const ROUNDS = Number(option('rounds', '3'));
// Calls per configuration before the measured rounds; on Bun a server's JIT threads compile for its first few seconds of calls.
const WARMUP_MS = Number(option('warmup', '100'));
const ONLY = option('only', Object.keys(PAYLOADS).join(',')).split(',');
const CLIENT_COUNTS = option('clients', '1,16').split(',').map(Number);
// The clients' fetch: 'default' (the transport's choice: undici Agent on Node, global fetch on Bun),
// 'global', or 'undici' (an undici Agent per client), to compare them on either runtime.
const FETCH = option('fetch', 'default');
async function fetchFor() {
  if (FETCH === 'global') return (url, init) => fetch(url, init);
  if (FETCH === 'undici') {
    const { Agent, fetch: undiciFetch } = await import('undici');
    const agent = new Agent({ keepAliveTimeout: 10_000 });
    return (url, init) => undiciFetch(url, { ...init, dispatcher: agent });
  }
  return undefined;
}

const SERVE = option('serve', 'node');
const JSON_RESPONSE = process.argv.includes('--json-response') || SERVE === 'bun';
if (JSON_RESPONSE) process.env.MEASURE_JSON_RESPONSE = '1';
const CONFIGS = [
  // MessagePack always: the client's requests ('smallest') and, with --json-response, the replies of a server
  // on 'smallest' (one on its default would pick each reply per message for a client that reads both).
  { name: 'ours msgpack', server: JSON_RESPONSE ? 'ours-smallest' : 'ours', wire: 'msgpack', encoding: 'smallest' },
  { name: 'ours json', server: 'ours', wire: 'json' },
  { name: 'sdk json', server: 'sdk', wire: 'json', stock: SERVE === 'bun' || process.argv.includes('--stock-client') },
];
const BEFORE = option('before', undefined);
const THREADS = process.argv.includes('--threads');
const DEFAULTS = process.argv.includes('--defaults');
if (DEFAULTS) CONFIGS.push({ name: 'ours defaults', server: 'defaults', wire: 'msgpack' }, { name: 'stock defaults', server: 'defaults', wire: 'json', stock: true });
if (BEFORE) {
  CONFIGS.push({ name: 'before msgpack', server: JSON_RESPONSE ? 'before-smallest' : 'before', wire: 'msgpack', encoding: 'smallest' }, { name: 'before json', server: 'before', wire: 'json' });
} else if (JSON_RESPONSE) CONFIGS.push({ name: 'ours adaptive', server: 'ours', wire: 'msgpack', encoding: 'cheapest-cpu' });

function startChild(server) {
  const kind = server === 'sdk' ? 'sdk' : 'ours';
  const env = server.endsWith('-smallest') ? { MEASURE_ENCODING: 'smallest' } : server === 'defaults' ? { MEASURE_JSON_RESPONSE: '0' } : {};
  if (server.startsWith('before')) env.MEASURE_TRANSPORT = resolve(BEFORE, 'packages/transport-msgpack/dist/esm/index.js');
  return forkMeasureServer(kind, env, SERVE);
}

async function connectClients(url, { wire, encoding, stock }, count) {
  const clients = [];
  for (let i = 0; i < count; i++) {
    const fetchOption = await fetchFor();
    const transport = stock
      ? new StreamableHTTPClientTransport(url, fetchOption ? { fetch: fetchOption } : {})
      : new HttpMsgpackClientTransport(url, { wire, ...(encoding ? { encoding } : {}), ...(fetchOption ? { fetch: fetchOption } : {}) });
    const client = new Client({ name: `measure-${i}`, version: '1.0.0' });
    await client.connect(transport);
    if (!stock && transport.wire !== wire) throw new Error(`client fell back to ${transport.wire}`);
    clients.push(client);
  }
  return clients;
}

/** Every client calls in a loop until the time is up; returns calls completed and elapsed ms. */
async function round(clients, payload, ms) {
  const deadline = performance.now() + ms;
  const start = performance.now();
  let calls = 0;
  let failures = 0;
  await Promise.all(
    clients.map(async (client) => {
      do {
        try {
          await client.callTool({ name: payload.tool, arguments: payload.arguments });
          calls++;
        } catch (error) {
          // Counted and reported, not fatal: one failed call should not end a long run.
          failures++;
          if (failures === 1) console.error(`a call failed: ${error.message}`);
        }
      } while (performance.now() < deadline);
    }),
  );
  return { calls, failures, ms: performance.now() - start };
}

const servers = {};
for (const config of CONFIGS) servers[config.server] ??= await startChild(config.server);
const runtime = typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node ${process.version}`;
console.log(`measure-http on ${runtime}, servers on ${SERVE === 'bun' ? 'Bun.serve' : 'node:http'}, client fetch ${FETCH}: ${ROUNDS} alternating rounds of ${ROUND_MS} ms per configuration\n`);
const rows = [];
try {
  for (const payloadName of ONLY) {
    const payload = PAYLOADS[payloadName];
    for (const count of CLIENT_COUNTS) {
      const sets = [];
      for (const config of CONFIGS)
        sets.push({ config, clients: await connectClients(servers[config.server].url, config, count), calls: 0, failures: 0, ms: 0, cpu: 0, perRound: [], threads: new Map(), perRoundNoJit: [] });
      for (const set of sets) await round(set.clients, payload, WARMUP_MS); // warm-up
      for (let r = 0; r < ROUNDS; r++) {
        // Rotate the order each round so no configuration always runs first or last.
        for (let k = 0; k < sets.length; k++) {
          const set = sets[(k + r) % sets.length];
          const server = servers[set.config.server];
          const before = await server.cpu();
          const threadsBefore = THREADS ? threadTimes(server.pid) : undefined;
          const result = await round(set.clients, payload, ROUND_MS);
          const cpu = (await server.cpu()) - before;
          if (threadsBefore) {
            let jitNs = 0;
            for (const [name, ns] of threadDelta(threadsBefore, threadTimes(server.pid))) {
              set.threads.set(name, (set.threads.get(name) ?? 0) + ns);
              if (isJitThread(name)) jitNs += ns;
            }
            set.perRoundNoJit.push((cpu - jitNs / 1000) / result.calls);
          }
          set.perRound.push(cpu / result.calls);
          set.cpu += cpu;
          set.calls += result.calls;
          set.failures += result.failures;
          set.ms += result.ms;
        }
      }
      const sdk = sets.find((set) => set.config.name === 'sdk json');
      const sdkRate = (sdk.calls / sdk.ms) * 1000;
      const sdkCpu = sdk.cpu / sdk.calls;
      for (const set of sets) {
        const rate = (set.calls / set.ms) * 1000;
        const cpu = set.cpu / set.calls;
        // Per round too: each round's CPU per call over the SDK's in the same round, so load that drifts
        // between rounds cancels; the median and the range are what to quote on a loaded machine.
        const ratios = set.perRound.map((perCall, r) => perCall / sdk.perRound[r]).sort((a, b) => a - b);
        const roundRatio = { median: ratios[ratios.length >> 1], min: ratios[0], max: ratios.at(-1) };
        rows.push({ payload: payloadName, clients: count, config: set.config.name, rate, cpu, rateRatio: rate / sdkRate, cpuRatio: cpu / sdkCpu, roundRatio, calls: set.calls, failures: set.failures });
      }
      for (const set of sets) await Promise.all(set.clients.map((client) => client.close()));
      printRows(rows.filter((row) => row.payload === payloadName && row.clients === count));
      if (THREADS) printThreads(sets, sdk);
      if (DEFAULTS) printDefaults(sets);
    }
  }
} finally {
  for (const server of Object.values(servers)) server.stop();
}

/** Our client on its defaults over the stock client, the same server on its defaults: server CPU per call, per-round median (and without the JIT threads). */
function printDefaults(sets) {
  const ours = sets.find((set) => set.config.name === 'ours defaults');
  const stock = sets.find((set) => set.config.name === 'stock defaults');
  const ratio = (a, b) => {
    const ratios = a.map((perCall, r) => perCall / b[r]).sort((x, y) => x - y);
    return `x${ratios[ratios.length >> 1].toFixed(2)} (${ratios[0].toFixed(2)}..${ratios.at(-1).toFixed(2)})`;
  };
  const withoutJit = THREADS ? `, without JIT threads ${ratio(ours.perRoundNoJit, stock.perRoundNoJit)}` : '';
  console.log(`ours defaults / stock defaults, one server on its defaults: server CPU per call ${ratio(ours.perRound, stock.perRound)}${withoutJit}\n`);
}

/** Per configuration: server CPU per call by thread (us), and the ratio to the SDK's server without the JIT threads. */
function printThreads(sets, sdk) {
  for (const set of sets) {
    const parts = [...set.threads].filter(([, ns]) => ns / set.calls >= 500).sort((a, b) => b[1] - a[1]);
    const ratios = set.perRoundNoJit.map((perCall, r) => perCall / sdk.perRoundNoJit[r]).sort((a, b) => a - b);
    console.log(
      `${set.config.name.padEnd(14)}  us/call by thread: ${parts.map(([name, ns]) => `${name} ${(ns / set.calls / 1000).toFixed(1)}`).join(', ')}; ` +
        `without JIT threads x${ratios[ratios.length >> 1].toFixed(2)} (${ratios[0].toFixed(2)}..${ratios.at(-1).toFixed(2)}) vs sdk json`,
    );
  }
  console.log('');
}

function printRows(part) {
  for (const row of part) {
    console.log(
      [
        row.payload.padEnd(13),
        `${String(row.clients).padStart(2)} client${row.clients === 1 ? ' ' : 's'}`,
        row.config.padEnd(14),
        `${row.rate.toFixed(1).padStart(8)} req/s`,
        `${(row.cpu / 1000).toFixed(3).padStart(8)} ms CPU/call`,
        `req/s x${row.rateRatio.toFixed(2)}`,
        `CPU x${row.cpuRatio.toFixed(2)} (vs sdk json; per round median x${row.roundRatio.median.toFixed(2)}, ${row.roundRatio.min.toFixed(2)}..${row.roundRatio.max.toFixed(2)})`,
        `${row.calls} calls${row.failures ? `, ${row.failures} FAILED` : ''}`,
      ].join('  '),
    );
  }
  console.log('');
}
