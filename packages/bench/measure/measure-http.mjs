// Streamable HTTP, measured side by side in one run with alternating rounds: our server on MessagePack,
// our server on JSON, and the SDK's own StreamableHTTPServerTransport (JSON), for small, object-heavy
// (50 KB, 1 MB) and media (1, 5 MiB image, base64 on both wires) payloads, with 1 and 16 concurrent
// clients. Reports requests per second and server CPU time per call (the server runs in a child process;
// its CPU is read over IPC around each round), and each as a ratio to the SDK's server.
//
//   node packages/bench/measure/measure-http.mjs [--ms 1000] [--rounds 3] [--only small,objects-50KB] [--clients 1,16] [--json-response]
// --json-response: our server answers each request in one body (enableJsonResponse), and a fourth
// configuration, 'ours adaptive', is our client on its default per-message encoding (SPEC.md 9.6).
//   bun packages/bench/measure/measure-http.mjs   (servers and clients then run on Bun)
// Not a test: numbers depend on the machine. Loopback only.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { PAYLOADS, forkMeasureServer } from './measure-http-server.mjs';

const option = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
};
const ROUND_MS = Number(option('ms', '1000'));
const ROUNDS = Number(option('rounds', '3'));
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

const JSON_RESPONSE = process.argv.includes('--json-response');
if (JSON_RESPONSE) process.env.MEASURE_JSON_RESPONSE = '1';
const CONFIGS = [
  // MessagePack always: the client's requests too ('smallest'); with --json-response the server still picks
  // each reply per message for a client that reads both, so this row is MessagePack requests only there.
  { name: 'ours msgpack', server: 'ours', wire: 'msgpack', encoding: 'smallest' },
  { name: 'ours json', server: 'ours', wire: 'json' },
  { name: 'sdk json', server: 'sdk', wire: 'json' },
  ...(JSON_RESPONSE ? [{ name: 'ours adaptive', server: 'ours', wire: 'msgpack', encoding: 'cheapest-cpu' }] : []),
];

async function connectClients(url, wire, count, encoding) {
  const clients = [];
  for (let i = 0; i < count; i++) {
    const fetchOption = await fetchFor();
    const transport = new HttpMsgpackClientTransport(url, { wire, ...(encoding ? { encoding } : {}), ...(fetchOption ? { fetch: fetchOption } : {}) });
    const client = new Client({ name: `measure-${i}`, version: '1.0.0' });
    await client.connect(transport);
    if (transport.wire !== wire) throw new Error(`client fell back to ${transport.wire}`);
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

const servers = { ours: await forkMeasureServer('ours'), sdk: await forkMeasureServer('sdk') };
const runtime = typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node ${process.version}`;
console.log(`measure-http on ${runtime}, client fetch ${FETCH}: ${ROUNDS} alternating rounds of ${ROUND_MS} ms per configuration\n`);
const rows = [];
try {
  for (const payloadName of ONLY) {
    const payload = PAYLOADS[payloadName];
    for (const count of CLIENT_COUNTS) {
      const sets = [];
      for (const config of CONFIGS) sets.push({ config, clients: await connectClients(servers[config.server].url, config.wire, count, config.encoding), calls: 0, failures: 0, ms: 0, cpu: 0 });
      for (const set of sets) await round(set.clients, payload, 100); // warm-up
      for (let r = 0; r < ROUNDS; r++) {
        // Rotate the order each round so no configuration always runs first or last.
        for (let k = 0; k < sets.length; k++) {
          const set = sets[(k + r) % sets.length];
          const server = servers[set.config.server];
          const before = await server.cpu();
          const result = await round(set.clients, payload, ROUND_MS);
          set.cpu += (await server.cpu()) - before;
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
        rows.push({ payload: payloadName, clients: count, config: set.config.name, rate, cpu, rateRatio: rate / sdkRate, cpuRatio: cpu / sdkCpu, calls: set.calls, failures: set.failures });
      }
      for (const set of sets) await Promise.all(set.clients.map((client) => client.close()));
      printRows(rows.filter((row) => row.payload === payloadName && row.clients === count));
    }
  }
} finally {
  servers.ours.stop();
  servers.sdk.stop();
}

function printRows(part) {
  for (const row of part) {
    console.log(
      [
        row.payload.padEnd(13),
        `${String(row.clients).padStart(2)} client${row.clients === 1 ? ' ' : 's'}`,
        row.config.padEnd(13),
        `${row.rate.toFixed(1).padStart(8)} req/s`,
        `${(row.cpu / 1000).toFixed(3).padStart(8)} ms CPU/call`,
        `req/s x${row.rateRatio.toFixed(2)}`,
        `CPU x${row.cpuRatio.toFixed(2)} (vs sdk json)`,
        `${row.calls} calls${row.failures ? `, ${row.failures} FAILED` : ''}`,
      ].join('  '),
    );
  }
  console.log('');
}
