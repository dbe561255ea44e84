// Our HTTP server's own CPU per call, by client, without sockets: one McpHttpHandler on its defaults (held
// replies, 'cheapest-cpu') in this process, called by our client on its defaults and by the stock SDK v1
// client (StreamableHTTPClientTransport), each through a fetch that hands the Request to the handler's
// `handle` and reads the reply's body. Only the time from the Request to the body read is counted
// (process CPU, summed over the calls), so the client's own work, the network and the other processes on
// the machine stay out: what is left is the server's work for each client's exact request bytes and
// headers. Rounds alternate the clients; the ratio is taken per round, then its median. measure-reply-streams.mjs
// measures the same through node:http; this is the tool to find where a gap between the two clients is.
//
//   bun packages/bench/measure/measure-request-path.mjs [--rounds 7] [--calls 300] [--only small,objects-50KB] [--before CHECKOUT]
//   node packages/bench/measure/measure-request-path.mjs   (the same on Node)
// --before CHECKOUT: the same two clients on a handler of that checkout's build (its
// packages/transport-msgpack/dist/esm), in the same rounds. Not a test: numbers depend on the machine.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { PAYLOADS, createPayloadServerFactory } from './measure-http-server.mjs';

const option = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
};
const ROUNDS = Number(option('rounds', '7'));
const CALLS = Number(option('calls', '300'));
const ONLY = option('only', 'small,objects-50KB,objects-1MB,text-64KB,numeric').split(',');
const BEFORE = option('before', undefined);
// --kinds ours or stock: one client only, e.g. to profile its calls (bun --cpu-prof-md ... --kinds ours).
const KINDS = option('kinds', 'ours,stock').split(',');

const cpuMicros = () => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

/** A handler of one build, and a fetch into it that counts the CPU of each POST's handling. */
async function serverOf(entry) {
  const { McpHttpHandler } = await import(entry);
  const handler = new McpHttpHandler({ createServer: createPayloadServerFactory(), maxMessageBytes: 64 * 1024 * 1024 });
  const counter = { micros: 0 };
  const fetch = async (url, init) => {
    const request = new Request(url, init);
    // GET opens the standalone stream, which stays open: handed back as it is, not counted.
    if (request.method !== 'POST') return handler.handle(request);
    const start = cpuMicros();
    const response = await handler.handle(request);
    const body = await response.arrayBuffer();
    counter.micros += cpuMicros() - start;
    return new Response(body.byteLength === 0 && response.status === 202 ? null : body, { status: response.status, headers: response.headers });
  };
  return { handler, counter, fetch };
}

/** Our client's variants besides its defaults, to tell which of its differences costs the server: --kinds ours,stock,ours-json,... */
const OUR_KINDS = {
  ours: {},
  'ours-json': { wire: 'json' },
  'ours-nonative': { nativeBytes: { negotiate: false } },
};
const stockAccept = (fetch) => (url, init) => {
  const headers = new Headers(init.headers);
  if (init.method === 'POST') headers.set('accept', 'application/json, text/event-stream');
  return fetch(url, { ...init, headers });
};

async function connect(server, kind) {
  const url = new URL('http://127.0.0.1/mcp');
  const transport =
    kind === 'stock'
      ? new StreamableHTTPClientTransport(url, { fetch: server.fetch })
      : kind === 'ours-stockaccept'
        ? new HttpMsgpackClientTransport(url, { fetch: stockAccept(server.fetch) })
        : new HttpMsgpackClientTransport(url, { ...OUR_KINDS[kind], fetch: server.fetch });
  const client = new Client({ name: `measure-${kind}`, version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const builds = [{ name: 'after', entry: 'mcp-msgpack-transport' }];
if (BEFORE) builds.unshift({ name: 'before', entry: pathToFileURL(resolve(BEFORE, 'packages/transport-msgpack/dist/esm/index.js')).href });
const runtime = typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node ${process.version}`;
console.log(`measure-request-path on ${runtime}: ${ROUNDS} alternating rounds of ${CALLS} calls per client; the handler's CPU per call (us), median of rounds\n`);
for (const build of builds) build.server = await serverOf(build.entry);
try {
  for (const name of ONLY) {
    const payload = PAYLOADS[name];
    const sets = [];
    for (const build of builds) for (const kind of KINDS) sets.push({ build: build.name, kind, server: build.server, client: await connect(build.server, kind), perCall: [] });
    const call = (set) => set.client.callTool({ name: payload.tool, arguments: payload.arguments });
    for (const set of sets) for (let i = 0; i < Math.min(CALLS, 50); i++) await call(set); // warm-up
    for (let r = 0; r < ROUNDS; r++) {
      for (let k = 0; k < sets.length; k++) {
        const set = sets[(k + r) % sets.length];
        const before = set.server.counter.micros;
        for (let i = 0; i < CALLS; i++) await call(set);
        set.perCall.push((set.server.counter.micros - before) / CALLS);
      }
    }
    const cells = [];
    if (KINDS.length !== 2 || KINDS[0] !== 'ours' || KINDS[1] !== 'stock') {
      console.log(`${name.padEnd(13)} ${sets.map((set) => `${set.build} ${set.kind} ${median(set.perCall).toFixed(1)}`).join('   ')}`);
      continue;
    }
    for (const build of builds) {
      const ours = sets.find((set) => set.build === build.name && set.kind === 'ours');
      const stock = sets.find((set) => set.build === build.name && set.kind === 'stock');
      const ratios = ours.perCall.map((cpu, i) => cpu / stock.perCall[i]).sort((a, b) => a - b);
      cells.push(
        `${build.name}: ours ${median(ours.perCall).toFixed(1)} stock ${median(stock.perCall).toFixed(1)} ours/stock ${median(ratios).toFixed(2)}x (${ratios[0].toFixed(2)}..${ratios.at(-1).toFixed(2)})`,
      );
    }
    console.log(`${name.padEnd(13)} ${cells.join('   ')}`);
    for (const set of sets) await set.client.close();
  }
} finally {
  for (const build of builds) await build.server.handler.close();
}
