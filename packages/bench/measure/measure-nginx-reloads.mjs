// nginx reloads under load, on the runtime that runs this script (node or bun): our HTTP client (both wires,
// stateless and sessions) beside the stock SDK client, calling through nginx (examples/scale) while nginx is
// reloaded; prints each client's calls and failed calls. Three instances of examples/scale/server.mjs (on
// Node) with a redis-server of their own, everything on loopback ports chosen here and stopped at the end.
// Needs Debian's nginx and redis-server (apt-get install -y nginx redis-server).
//   node packages/bench/measure/measure-nginx-reloads.mjs [--reloads 10] [--clients 2]
//   node_modules/.bin/bun packages/bench/measure/measure-nginx-reloads.mjs [--reloads 10] [--clients 2]
// npm run test:scale's step (j) asserts on Node's figures; this script measures either runtime.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { nginxConfig } from '../../../examples/scale/nginx.conf.mjs';
import { findBinary, missingBinaries, startNginx, startProcess, startRedis, stopProcess } from '../../../scripts/lib/services.mjs';

const argument = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
};
const RELOADS = argument('reloads', 10);
/** Clients of each kind on each path. */
const CLIENTS = argument('clients', 2);
const RELOAD_GAP_MS = 700;
const CALL_TIMEOUT_MS = 5_000;
const SERVER = fileURLToPath(new URL('../../../examples/scale/server.mjs', import.meta.url));
const runtime = typeof Bun === 'undefined' ? `node ${process.version}` : `bun ${Bun.version}`;

const skip = missingBinaries(['redis-server', 'nginx']);
if (skip) {
  console.log(`skipped: ${skip}`);
  process.exit(0);
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const redis = await startRedis();
const instances = [];
let nginx;
try {
  for (const name of ['i1', 'i2', 'i3']) {
    let port;
    const child = await startProcess(findBinary('node'), [SERVER, '--port', '0', '--redis', redis.url, '--name', name], (output) => (port = /listening (\d+)/.exec(output)?.[1]) !== undefined);
    instances.push({ child, port });
  }
  nginx = await startNginx(
    nginxConfig,
    instances.map((instance) => `127.0.0.1:${instance.port}`),
  );
  const clients = [];
  for (const kind of ['ours msgpack', 'ours json', 'stock']) {
    for (const path of ['/mcp-stateless', '/mcp']) {
      for (let i = 0; i < CLIENTS; i++) {
        const url = new URL(path, nginx.url);
        const transport = kind === 'stock' ? new StreamableHTTPClientTransport(url) : new HttpMsgpackClientTransport(url, { wire: kind.split(' ')[1] });
        const client = new Client({ name: 'measure-nginx-reloads', version: '1.0.0' });
        await client.connect(transport);
        clients.push({ kind, client, transport });
      }
    }
  }
  const stats = {};
  let stopped = false;
  const loops = clients.map(async ({ kind, client }) => {
    stats[kind] ??= { calls: 0, failed: new Map() };
    while (!stopped) {
      stats[kind].calls++;
      try {
        await client.callTool({ name: 'whoami', arguments: {} }, undefined, { timeout: CALL_TIMEOUT_MS });
      } catch (error) {
        const message = `${error.message.replace(/\(POST [^)]*\)/, '').trim()}${error.cause?.code ? ` (${error.cause.code})` : ''}`;
        stats[kind].failed.set(message, (stats[kind].failed.get(message) ?? 0) + 1);
      }
      await sleep(5);
    }
  });
  for (let i = 0; i < RELOADS; i++) {
    await sleep(RELOAD_GAP_MS);
    nginx.reload();
  }
  await sleep(RELOAD_GAP_MS);
  stopped = true;
  await Promise.all(loops);
  console.log(`${runtime}: nginx reloaded ${RELOADS} times, ${RELOAD_GAP_MS} ms apart, ${CLIENTS} client(s) of each kind on /mcp-stateless and /mcp`);
  for (const [kind, { calls, failed }] of Object.entries(stats)) {
    const count = [...failed.values()].reduce((sum, n) => sum + n, 0);
    console.log(`  ${kind.padEnd(12)} ${calls} calls, ${count} failed${count ? `: ${[...failed].map(([message, n]) => `${n} x ${message}`).join('; ')}` : ''}`);
  }
  await Promise.all(clients.map(({ client, transport }) => (transport.sessionId ? transport.terminateSession().catch(() => {}) : Promise.resolve()).then(() => client.close())));
} finally {
  await nginx?.stop();
  await Promise.all(instances.map((instance) => stopProcess(instance.child)));
  await redis.stop();
}
