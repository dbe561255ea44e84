// The server's CPU per call for each client's exact request, with no client running: our client on its
// defaults and the stock SDK v1 client each open a session on one McpHttpHandler in this process and make one
// tool call through a fetch that records it; then the recorded POSTs (headers and body bytes, each in its own
// session) are handed to the handler again and again, in rounds that alternate the clients, and only the
// process CPU of that replay is counted. No client code, no client garbage and no sockets are in the figure:
// a difference between the two is the server's work for the request itself (issue 30, item 3).
// measure-request-path.mjs measures the same with the clients running.
//
//   bun packages/bench/measure/measure-replayed-requests.mjs [--rounds 8] [--calls 1000] [--only small,objects-50KB] [--one-body]
//   node packages/bench/measure/measure-replayed-requests.mjs   (the same on Node)
// --one-body: the handler with enableJsonResponse, as the benchmark's json and msgpack variants serve; default:
// the handler's defaults (held replies), as its `defaults` and `stock-client` variants do.
// Not a test: numbers depend on the machine.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HttpMsgpackClientTransport, McpHttpHandler } from 'mcp-msgpack-transport';
import { PAYLOADS, createPayloadServerFactory } from './measure-http-server.mjs';

const option = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
};
const ROUNDS = Number(option('rounds', '8'));
const CALLS = Number(option('calls', '1000'));
const ONLY = option('only', 'small,objects-50KB,objects-1MB').split(',');
const ONE_BODY = process.argv.includes('--one-body');

const handler = new McpHttpHandler({ createServer: createPayloadServerFactory(), maxMessageBytes: 64 * 1024 * 1024, ...(ONE_BODY ? { enableJsonResponse: true } : {}) });
const url = new URL('http://127.0.0.1/mcp');

/** A client of `kind` with a session on the handler, and the POST of its `tools/call` for `payload`, as recorded. */
async function recordedCall(kind, payload) {
  let recorded;
  const fetch = async (input, init) => {
    const request = new Request(input, init);
    if (request.method === 'POST' && !recorded?.done) recorded = { headers: [...request.headers], body: new Uint8Array(await request.clone().arrayBuffer()) };
    return handler.handle(request);
  };
  const transport = kind === 'stock' ? new StreamableHTTPClientTransport(url, { fetch }) : new HttpMsgpackClientTransport(url, { fetch });
  const client = new Client({ name: `replay-${kind}`, version: '1.0.0' });
  await client.connect(transport);
  await client.callTool({ name: payload.tool, arguments: payload.arguments });
  recorded.done = true;
  return { client, recorded };
}

/** Process CPU (us) of `calls` replays of one recorded POST, each reply read whole. */
async function replay({ headers, body }, calls) {
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    const response = await handler.handle(new Request(url, { method: 'POST', headers, body }));
    await response.arrayBuffer();
  }
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const runtime = typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node ${process.version}`;
console.log(
  `measure-replayed-requests on ${runtime}, handler ${ONE_BODY ? 'with enableJsonResponse' : 'on its defaults'}: ${ROUNDS} alternating rounds of ${CALLS} replayed calls per client; server CPU per call (us)\n`,
);
for (const name of ONLY) {
  const payload = PAYLOADS[name];
  const sets = [];
  for (const kind of ['ours', 'stock']) sets.push({ kind, ...(await recordedCall(kind, payload)), perCall: [] });
  for (const set of sets) await replay(set.recorded, Math.min(CALLS, 100)); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    for (const set of r % 2 === 0 ? sets : [...sets].reverse()) set.perCall.push((await replay(set.recorded, CALLS)) / CALLS);
  }
  const [ours, stock] = sets;
  const ratios = ours.perCall.map((cpu, r) => cpu / stock.perCall[r]).sort((a, b) => a - b);
  const accept = (set) => set.recorded.headers.find(([header]) => header === 'accept')?.[1];
  console.log(
    `${name.padEnd(13)} ours ${median(ours.perCall).toFixed(1)}  stock ${median(stock.perCall).toFixed(1)}  ours/stock x${median(ratios).toFixed(2)} (${ratios[0].toFixed(2)}..${ratios.at(-1).toFixed(2)})` +
      `  [ours: ${ours.recorded.body.byteLength} B, Accept ${accept(ours)}; stock: ${stock.recorded.body.byteLength} B]`,
  );
  for (const set of sets) await set.client.close();
}
await handler.close();
