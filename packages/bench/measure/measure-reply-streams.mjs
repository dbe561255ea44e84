// Held replies (SPEC.md 9.6.2), before and after, in one run: the same McpServer on our HTTP handler with
// default options, twice, one with `replyStreams: 'always'` (every tools/call answered on a stream, the
// behaviour before) and one with the default `'when-needed'` (one body when the result is the only
// message); each called by our client on its defaults and by the stock SDK v1 client
// (StreamableHTTPClientTransport, JSON). Rounds alternate across the four configurations. Reports the
// server's CPU per call (the servers run in child processes; CPU read over IPC around each round) and each
// client's ratio to the stock client on the same server.
//
//   node packages/bench/measure/measure-reply-streams.mjs [--ms 1000] [--rounds 4] [--only small,objects-50KB]
//   bun packages/bench/measure/measure-reply-streams.mjs   (servers and clients on Bun)
// --before CHECKOUT: a client change measured instead: one server on the default ('when-needed'), called by
// our client of this build, our client of that checkout's build (its packages/transport-msgpack/dist/esm),
// and the stock client, in the same rounds; reports each of ours over the stock client, and after/before.
// Not a test: numbers depend on the machine. Loopback only.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { PAYLOADS, forkMeasureServer } from './measure-http-server.mjs';

const option = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
};
const ROUND_MS = Number(option('ms', '1000'));
const ROUNDS = Number(option('rounds', '4'));
const ONLY = option('only', 'small,objects-50KB,objects-1MB,text-64KB,numeric').split(',');

const BEFORE = option('before', undefined);
const BeforeClient = BEFORE ? (await import(pathToFileURL(resolve(BEFORE, 'packages/transport-msgpack/dist/esm/index.js')).href)).HttpMsgpackClientTransport : undefined;

const CONFIGS = [
  { name: 'before ours', server: 'always', client: 'ours' },
  { name: 'before stock', server: 'always', client: 'stock' },
  { name: 'after ours', server: 'when-needed', client: 'ours' },
  { name: 'after stock', server: 'when-needed', client: 'stock' },
];

// With --before: the same server for all three clients.
const CLIENT_CONFIGS = [
  { name: 'client after', server: 'when-needed', client: 'ours' },
  { name: 'client before', server: 'when-needed', client: 'before' },
  { name: 'stock', server: 'when-needed', client: 'stock' },
];

async function connect(url, kind) {
  const transport = kind === 'ours' ? new HttpMsgpackClientTransport(url) : kind === 'before' ? new BeforeClient(url) : new StreamableHTTPClientTransport(url);
  const client = new Client({ name: `measure-${kind}`, version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function round(client, payload, ms) {
  const deadline = performance.now() + ms;
  let calls = 0;
  do {
    await client.callTool({ name: payload.tool, arguments: payload.arguments });
    calls++;
  } while (performance.now() < deadline);
  return calls;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const servers = {
  always: BEFORE ? undefined : await forkMeasureServer('ours', { MEASURE_REPLY_STREAMS: 'always' }),
  'when-needed': await forkMeasureServer('ours', { MEASURE_REPLY_STREAMS: 'when-needed' }),
};
const configs = BEFORE ? CLIENT_CONFIGS : CONFIGS;
const runtime = typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node ${process.version}`;
console.log(`measure-reply-streams on ${runtime}: ${ROUNDS} alternating rounds of ${ROUND_MS} ms per configuration; server CPU per call, median of rounds\n`);
if (BEFORE)
  console.log(
    `${'payload'.padEnd(13)} ${'ours after/stock'.padStart(17)} ${'ours before/stock'.padStart(18)} ${'after/before'.padStart(13)} ${'client after/before'.padStart(20)}   (ms CPU/call: after, before, stock; client CPU/call, the same)`,
  );
else
  console.log(
    `${'payload'.padEnd(13)} ${'before: ours/stock'.padStart(19)} ${'after: ours/stock'.padStart(18)} ${'after/before ours'.padStart(18)} ${'after/before stock'.padStart(19)}   (ms CPU/call: before ours, stock; after ours, stock)`,
  );
try {
  for (const name of ONLY) {
    const payload = PAYLOADS[name];
    const sets = [];
    for (const config of configs) sets.push({ config, client: await connect(servers[config.server].url, config.client), perCall: [], clientPerCall: [] });
    for (const set of sets) await round(set.client, payload, 150); // warm-up
    for (let r = 0; r < ROUNDS; r++) {
      // Rotate the order each round so no configuration always runs first or last.
      for (let k = 0; k < sets.length; k++) {
        const set = sets[(k + r) % sets.length];
        const server = servers[set.config.server];
        const before = await server.cpu();
        const clientBefore = process.cpuUsage();
        const calls = await round(set.client, payload, ROUND_MS);
        // This process's CPU: the one client calling this round (the others idle), for --before's client column.
        const clientCpu = process.cpuUsage(clientBefore);
        set.clientPerCall.push((clientCpu.user + clientCpu.system) / calls);
        set.perCall.push(((await server.cpu()) - before) / calls);
      }
    }
    // Ratios per round (the two sides of a ratio ran in the same round), then their median.
    const ratio = (a, b) => median(sets[a].perCall.map((cpu, i) => cpu / sets[b].perCall[i]));
    const ms = sets.map((set) => (median(set.perCall) / 1000).toFixed(3));
    if (BEFORE) {
      const clientRatio = median(sets[0].clientPerCall.map((cpu, i) => cpu / sets[1].clientPerCall[i]));
      const clientMs = sets.map((set) => (median(set.clientPerCall) / 1000).toFixed(3));
      console.log(
        `${name.padEnd(13)} ${`${ratio(0, 2).toFixed(2)}x`.padStart(17)} ${`${ratio(1, 2).toFixed(2)}x`.padStart(18)} ${`${ratio(0, 1).toFixed(2)}x`.padStart(13)} ${`${clientRatio.toFixed(2)}x`.padStart(20)}   (${ms.join(', ')}; client ${clientMs.join(', ')})`,
      );
      for (const set of sets) await set.client.close();
      continue;
    }
    console.log(
      `${name.padEnd(13)} ${`${ratio(0, 1).toFixed(2)}x`.padStart(19)} ${`${ratio(2, 3).toFixed(2)}x`.padStart(18)} ${`${ratio(2, 0).toFixed(2)}x`.padStart(18)} ${`${ratio(3, 1).toFixed(2)}x`.padStart(19)}   (${ms[0]}, ${ms[1]}; ${ms[2]}, ${ms[3]})`,
    );
    for (const set of sets) await set.client.close();
  }
} finally {
  servers.always?.stop();
  servers['when-needed'].stop();
}
