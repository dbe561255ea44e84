// Measures the native-bytes extension: one image tool call (default 5 MiB) over stdio to a child
// McpServer, in each mode, side by side in one run. Not a test: numbers vary by machine.
//   npm run build -w mcp-msgpack-transport && node packages/bench/measure/measure-native-bytes.mjs [MiB] [calls]
//   (or run it with bun: the child server then runs on bun too)
// Reports per call: bytes the server wrote to the pipe, server CPU (process.cpuUsage in the child,
// read through a tool before and after the calls), client wall time (median and mean).
import { spawn as nodeSpawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioMsgpackClientTransport, callToolNative } from 'mcp-msgpack-transport';

const MiB = 1024 * 1024;
const size = Math.round(Number(process.argv[2] ?? 5) * MiB);
const calls = Number(process.argv[3] ?? 20);
const warmup = 3;
const server = fileURLToPath(new URL('../../transport-msgpack/build/test/fixtures/native-server.js', import.meta.url));

/** child_process.spawn that also counts what the server writes. */
function countingSpawn(counter) {
  return (command, args, options) => {
    const child = nodeSpawn(command, args, options);
    child.stdout.on('data', (chunk) => (counter.bytes += chunk.length));
    return child;
  };
}

const modes = [
  { name: 'msgpack + native bytes, callToolNative (bytes to the app)', wire: 'msgpack', nativeBytes: true, tool: 'cached-image', native: true },
  { name: 'msgpack + native bytes, callTool (base64 to the app)', wire: 'msgpack', nativeBytes: true, tool: 'cached-image', native: false },
  { name: 'msgpack, extension off (same handler)', wire: 'msgpack', nativeBytes: false, tool: 'cached-image', native: false },
  { name: 'JSON wire, same handler (base64 once)', wire: 'json', nativeBytes: true, tool: 'cached-image', native: false },
  { name: 'JSON wire, stock handler (base64 in handler)', wire: 'json', nativeBytes: false, tool: 'cached-image-base64', native: false },
  { name: 'stock SDK stdio client + stock handler', stock: true, tool: 'cached-image-base64', native: false },
];

async function cpu(client) {
  const result = await client.callTool({ name: 'cpu', arguments: {} });
  const { user, system } = JSON.parse(result.content[0].text);
  return user + system;
}

async function open(mode) {
  const counter = { bytes: 0 };
  const transport = mode.stock
    ? new StdioClientTransport({ command: process.execPath, args: [server] })
    : new StdioMsgpackClientTransport({ command: process.execPath, args: [server], wire: mode.wire, nativeBytes: mode.nativeBytes, spawn: countingSpawn(counter) });
  const client = new Client({ name: 'measure', version: '1.0.0' });
  await client.connect(transport);
  const call = () => (mode.native ? callToolNative(client, { name: mode.tool, arguments: { bytes: size } }) : client.callTool({ name: mode.tool, arguments: { bytes: size } }));
  return { mode, client, counter, call, times: [] };
}

async function timedCall(run) {
  const start = performance.now();
  const result = await run.call();
  run.times.push(performance.now() - start);
  const data = result.content[0].data;
  const length = typeof data === 'string' ? Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0) : data.length;
  if (length !== size) throw new Error(`${run.mode.name}: got ${length} bytes, expected ${size}`);
}

/** All modes run side by side, one call each per round, so load from elsewhere hits them alike. */
async function measureAll() {
  const runs = [];
  for (const mode of modes) runs.push(await open(mode));
  for (const run of runs) for (let i = 0; i < warmup; i++) await run.call();
  for (const run of runs) {
    run.cpuBefore = await cpu(run.client);
    run.bytesBefore = run.counter.bytes;
  }
  for (let i = 0; i < calls; i++) for (const run of runs) await timedCall(run);
  // The cpu tool's own reply is a few dozen bytes; its CPU is negligible next to a 5 MiB call.
  for (const run of runs) run.cpuAfter = await cpu(run.client);
  const rows = [];
  for (const run of runs) {
    await run.client.close();
    const times = run.times.sort((a, b) => a - b);
    rows.push({
      mode: run.mode.name,
      wireBytes: run.mode.stock ? undefined : (run.counter.bytes - run.bytesBefore) / calls,
      serverCpuMs: (run.cpuAfter - run.cpuBefore) / 1000 / calls,
      clientMedianMs: times[Math.floor(times.length / 2)],
      clientMeanMs: times.reduce((a, b) => a + b, 0) / times.length,
    });
  }
  return rows;
}

const runtime = typeof Bun !== 'undefined' ? `bun ${Bun.version}` : `node ${process.version}`;
console.log(`native bytes over stdio: ${(size / MiB).toFixed(2)} MiB image tool, ${calls} calls after ${warmup} warm-up, ${runtime}\n`);
const rows = await measureAll();
const base = rows[0];
const fmt = (n, d = 1) => (n === undefined ? '-' : n.toFixed(d));
const ratio = (n, b) => (n === undefined || b === undefined ? '-' : (n / b).toFixed(2) + 'x');
const header = ['mode', 'wire B/call', 'vs native', 'server CPU ms', 'vs native', 'client p50 ms', 'vs native', 'client mean ms'];
const lines = rows.map((r) => [
  r.mode,
  r.wireBytes === undefined ? '-' : Math.round(r.wireBytes).toString(),
  ratio(r.wireBytes, base.wireBytes),
  fmt(r.serverCpuMs, 2),
  ratio(r.serverCpuMs, base.serverCpuMs),
  fmt(r.clientMedianMs, 2),
  ratio(r.clientMedianMs, base.clientMedianMs),
  fmt(r.clientMeanMs, 2),
]);
const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
const show = (cells) => console.log(cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '));
show(header);
for (const l of lines) show(l);
console.log('\n(stock SDK client: wire bytes not counted, its transport hides the child; same JSON text as the row above it.)');
