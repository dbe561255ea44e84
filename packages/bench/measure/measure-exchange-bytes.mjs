// Bytes on the wire per small HTTP exchange (a small tools/call and its reply, headers included), counted
// by a TCP relay between client and server on loopback, for our server with: a stock SDK JSON client, our
// client on MessagePack always ('smallest' on both sides) and our client per message ('cheapest-cpu' on
// both sides, SPEC.md 9.6). Runs this build, or another build of the transport to compare (before/after):
//   node packages/bench/measure/measure-exchange-bytes.mjs [/path/to/other/packages/transport-msgpack/dist/esm/index.js] [calls=200] [--dump]
// (--dump prints the last exchange's request and response heads.)
//   bun packages/bench/measure/measure-exchange-bytes.mjs ...
// (build the other side as packages/bench/measure/measure-decode-cost.mjs says.) Not a test: the figures depend on the
// runtime's HTTP stack (header casing, Date, keep-alive), which is the same for every row of one run.
import { createServer as createTcpServer, connect as connectTcp } from 'node:net';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

const otherBuild = process.argv[2] && !/^(\d+|--dump)$/.test(process.argv[2]) ? process.argv[2] : undefined;
const calls = Number(process.argv.find((a, i) => i >= 2 && /^\d+$/.test(a)) ?? 200);
const dump = process.argv.includes('--dump');
const transport = otherBuild ? await import(pathToFileURL(otherBuild).href) : await import('mcp-msgpack-transport');

function createServer() {
  const server = new McpServer({ name: 'bytes', version: '1.0.0' });
  server.registerTool('small', { inputSchema: { n: z.number(), tag: z.string() } }, async ({ n, tag }) => ({ content: [{ type: 'text', text: `${tag} ${n}` }] }));
  return server;
}

/** A TCP relay to `target` that counts the bytes each way. */
async function relay(target) {
  const counts = { up: 0, down: 0, lastUp: '', lastDown: '' };
  const sockets = new Set();
  const server = createTcpServer((inbound) => {
    const outbound = connectTcp(target.port, target.hostname);
    sockets.add(inbound).add(outbound);
    inbound.on('data', (chunk) => ((counts.up += chunk.length), (counts.lastUp = chunk.toString('latin1')), outbound.write(chunk)));
    outbound.on('data', (chunk) => ((counts.down += chunk.length), (counts.lastDown = chunk.toString('latin1')), inbound.write(chunk)));
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
    inbound.on('error', () => {});
    outbound.on('error', () => {});
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: new URL(`http://127.0.0.1:${server.address().port}${target.pathname}`),
    counts,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

const variants = [
  { name: 'json (SDK client)', server: undefined, client: (url) => new StreamableHTTPClientTransport(url) },
  { name: 'msgpack (smallest)', server: 'smallest', client: (url) => new transport.HttpMsgpackClientTransport(url, { encoding: 'smallest' }) },
  { name: 'adaptive (cheapest-cpu)', server: 'cheapest-cpu', client: (url) => new transport.HttpMsgpackClientTransport(url, { encoding: 'cheapest-cpu' }) },
];

const runtimeName = typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node ${process.version}`;
console.log(`${runtimeName}, ${otherBuild ? `build ${otherBuild}` : 'this build'}, ${calls} small tools/call per variant, bytes per exchange (client->server + server->client)`);
const results = {};
for (const variant of variants) {
  // enableJsonResponse: one body per reply, as the benchmark's HTTP server answers (and where 9.6 applies).
  const handler = new transport.McpHttpHandler({ createServer, enableJsonResponse: true, ...(variant.server ? { encoding: variant.server } : {}) });
  const running = await transport.listenNode(handler);
  const counted = await relay(running.url);
  const client = new Client({ name: 'bytes', version: '1.0.0' });
  await client.connect(variant.client(counted.url));
  await client.callTool({ name: 'small', arguments: { n: 0, tag: 'warm' } });
  counted.counts.up = counted.counts.down = 0;
  for (let i = 1; i <= calls; i++) await client.callTool({ name: 'small', arguments: { n: i, tag: 'bench' } });
  const { up, down } = counted.counts;
  results[variant.name] = (up + down) / calls;
  console.log(`${variant.name.padEnd(26)} ${((up + down) / calls).toFixed(1).padStart(7)} B  (${(up / calls).toFixed(1)} + ${(down / calls).toFixed(1)})`);
  if (dump) console.log(`${counted.counts.lastUp.split('\r\n\r\n')[0]}\n\n${counted.counts.lastDown.split('\r\n\r\n')[0]}\n`);
  await client.close();
  await counted.close();
  await running.close();
}
const json = results['json (SDK client)'];
for (const name of Object.keys(results).slice(1)) console.log(`${name.padEnd(26)} ${(results[name] / json).toFixed(3)}x json`);
