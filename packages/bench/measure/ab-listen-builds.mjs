// A/B of two builds of the transport through their listen function (listenBun on Bun, listenNode on Node),
// over loopback sockets: each build serves the same small tools/call (stateless, one JSON or MessagePack
// reply) on a server of its own in this process, and a kept-alive client asks both in alternating batches.
// The process CPU and wall time per call are compared round by round. For checking that what the listen
// path adds per request (connection limits, say) costs nothing measurable:
//   node|bun packages/bench/measure/ab-listen-builds.mjs BEFORE_CHECKOUT AFTER_CHECKOUT [msgpack|json] [--rounds 20] [--batch 500]
//        [--after-listen JSON]
// (each checkout built: `git archive REV | tar -x -C ../before && (cd ../before && npm ci)`). Client and both
// servers share the process, so the client's cost is in both figures alike. Numbers, not a test.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { encode } from '@msgpack/msgpack';

const argv = process.argv.slice(2);
const [beforeDir, afterDir] = argv;
const wire = argv[2] === 'json' ? 'json' : 'msgpack';
const option = (name, fallback) => (argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : fallback);
const rounds = option('rounds', 20);
const batch = option('batch', 500);
// ListenOptions for the after build only (to see what one limit costs, say: {"requestTimeoutMs":0}).
const afterListen = argv.includes('--after-listen') ? JSON.parse(argv[argv.indexOf('--after-listen') + 1]) : {};
if (!beforeDir || !afterDir) {
  console.error('usage: node|bun packages/bench/measure/ab-listen-builds.mjs BEFORE_CHECKOUT AFTER_CHECKOUT [msgpack|json] [--rounds 20] [--batch 500]');
  process.exit(2);
}
const isBun = typeof globalThis.Bun !== 'undefined';
const entry = (dir) => pathToFileURL(resolve(dir, 'packages/transport-msgpack/dist/esm/index.js')).href;
const makeServer = () => {
  const server = new McpServer({ name: 'ab', version: '1' });
  server.tool('echo', {}, async () => ({ content: [{ type: 'text', text: 'hello world' }] }));
  return server;
};
const servers = {};
for (const [name, dir] of [
  ['before', beforeDir],
  ['after', afterDir],
]) {
  const build = await import(entry(dir));
  const handler = new build.McpHttpHandler({ createServer: makeServer, stateless: true, enableJsonResponse: true });
  servers[name] = await (isBun ? build.listenBun : build.listenNode)(handler, name === 'after' ? afterListen : {});
}

const contentType = wire === 'msgpack' ? 'application/msgpack' : 'application/json';
const accept = wire === 'msgpack' ? 'application/msgpack, application/json, text/event-stream' : 'application/json, text/event-stream';
const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } };
const body = wire === 'msgpack' ? encode(call) : JSON.stringify(call);
const headers = { 'content-type': contentType, accept, 'mcp-protocol-version': '2025-11-25' };

async function runBatch(url) {
  for (let i = 0; i < batch; i++) {
    const response = await fetch(url, { method: 'POST', headers, body });
    if (response.status !== 200) throw new Error(`status ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  }
}
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

for (const name of ['before', 'after']) await runBatch(servers[name].url); // warm-up
const per = { before: { cpu: [], wall: [] }, after: { cpu: [], wall: [] } };
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
  for (const name of order) {
    const cpu = cpuMs();
    const wall = performance.now();
    await runBatch(servers[name].url);
    per[name].cpu.push(((cpuMs() - cpu) * 1000) / batch);
    per[name].wall.push(((performance.now() - wall) * 1000) / batch);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ratios = per.after.cpu.map((cpu, i) => cpu / per.before.cpu[i]);
console.log(`${isBun ? `bun ${globalThis.Bun.version}, listenBun` : `node ${process.version}, listenNode`}; ${wire}; ${rounds} rounds of ${batch} calls each, alternating`);
for (const name of ['before', 'after']) console.log(`  ${name}: CPU ${median(per[name].cpu).toFixed(1)} us/call, wall ${median(per[name].wall).toFixed(1)} us/call (medians)`);
console.log(`  after/before CPU per round: median ${median(ratios).toFixed(3)}, min ${Math.min(...ratios).toFixed(3)}, max ${Math.max(...ratios).toFixed(3)}`);
for (const server of Object.values(servers)) await server.close();
process.exit(0);
