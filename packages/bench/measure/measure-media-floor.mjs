// The media server against the physical reference: read_media_file of one 5 MiB file with native bytes, read
// with our client, against a server with no MCP and no codec answering the same file (over HTTP a raw
// node:http server, lib/raw-media-http.mjs, Bun.serve on Bun; over stdio the raw length-prefixed pipe the
// benchmark's media venue uses). All servers run at once and take turns, call by call in rotating order, so
// the machine's load falls on all alike. Not a test. Linux only (server CPU from /proc).
//   npm run build && node packages/bench/measure/measure-media-floor.mjs [--rounds 8] [--calls 10] [--mib 5] [--warmup 5] [--json] [--small-call] [--other CLI] [--raw-read auto|array|reader] [--only http|stdio]
//   bun packages/bench/measure/measure-media-floor.mjs ...   (servers on Bun too)
// --json adds our JSON wire on the same servers (stdio: our client on JSON; HTTP: the SDK's stock client), for
// the native / JSON ratios. --small-call adds a call of list_allowed_directories (no file, no media) on the same
// servers and clients, against the same references: the cost of any MCP call there. --other OTHER/cli.js adds
// another build of the media server's CLI (A/B), each row against the references and this build against it.
// --raw-read array|reader picks how the raw HTTP client reads the body (default: the cheaper one on this runtime).
// --env K=V (repeatable) sets a variable in every server's environment.
// Per round and variant: server CPU per call (every thread's run time: cpuSample, cpuBetween), the
// client's median call time and the client's own CPU per call (this process, process.cpuUsage around each call). Prints per variant the median over rounds, and ours / reference per round:
// the median ratio and its range.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { callToolNative, HttpMsgpackClientTransport, StdioMsgpackClientTransport } from 'mcp-msgpack-transport';
import { FrameReader } from 'mcp-msgpack-transport/wire';
import { startUrlPrinter } from './lib/child-server.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const ROUNDS = Number(option('--rounds', 8));
const CALLS = Number(option('--calls', 10));
const MIB = Number(option('--mib', 5));
const WARMUP = Number(option('--warmup', 5));
const WITH_JSON = args.includes('--json');
const WITH_SMALL = args.includes('--small-call');
/** How the raw HTTP client reads a body: 'auto' (the cheaper way on this runtime, see bodyBytes), 'array', 'reader'. */
const RAW_READ = option('--raw-read', 'auto');
const OTHER = option('--other', undefined) && path.resolve(option('--other'));
const ONLY = option('--only', undefined);
const EXTRA_ENV = Object.fromEntries(args.flatMap((a, i) => (args[i - 1] === '--env' ? [a.split(/=(.*)/s).slice(0, 2)] : [])));
const ENV = { ...process.env, ...EXTRA_ENV };
const RUNTIME = typeof globalThis.Bun !== 'undefined' ? `Bun ${globalThis.Bun.version}` : `Node ${process.version}`;

const OURS = fileURLToPath(new URL('../../filesystem-media-server/dist/esm/cli.js', import.meta.url));
const RAW_HTTP = fileURLToPath(new URL('./lib/raw-media-http.mjs', import.meta.url));
const RAW_PIPE = fileURLToPath(new URL('../dist/esm/servers/raw-media.js', import.meta.url));

/**
 * A process's CPU time so far: its live threads' run time at ns resolution (/proc/PID/task/T/schedstat, ms)
 * and which threads those were, with the process total in 10 ms ticks (/proc/PID/stat, which keeps the time
 * of threads that have exited).
 */
function cpuSample(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const tickMs = (Number(fields[11]) + Number(fields[12])) * 10;
  let ns = 0;
  const tasks = new Set();
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
      tasks.add(task);
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return { ms: ns / 1e6, tasks, tickMs };
}

/**
 * CPU used between two samples: the threads' run time when every thread of the first is still there (exact),
 * else the coarse ticks (a thread that exited took its run time with it; Bun's threads come and go).
 */
function cpuBetween(before, after) {
  for (const task of before.tasks) if (!after.tasks.has(task)) return after.tickMs - before.tickMs;
  return after.ms - before.ms;
}

/** The raw pipe's client: a length-prefixed path out, the length-prefixed file back. */
function rawPipe(file) {
  const child = spawn(process.execPath, [RAW_PIPE], { stdio: ['pipe', 'pipe', 'ignore'], env: ENV });
  const reader = new FrameReader();
  const waiting = [];
  child.stdout.on('data', (chunk) => reader.push(chunk, (payload) => waiting.shift()(payload)));
  const request = Buffer.from(file, 'utf8');
  const header = Buffer.alloc(4);
  header.writeUInt32BE(request.length);
  const framed = Buffer.concat([header, request]);
  return {
    pid: child.pid,
    call: () =>
      new Promise((resolve) => {
        waiting.push(resolve);
        child.stdin.write(framed);
      }),
    stop: () => child.stdin.end(),
  };
}

/**
 * The body's bytes in one buffer, read the cheaper way on each runtime (measured side by side, 5 MiB over
 * loopback): Bun's arrayBuffer() is native (5.8 ms client CPU against 8.9 ms for a reader loop); Node's
 * arrayBuffer() (and a for-await loop) took twice the wall time of a reader loop copying undici's 64 KiB chunks
 * into one buffer of the announced length as they come (86 ms against 41 ms, loaded machine).
 */
async function bodyBytes(response) {
  if (RAW_READ === 'array' || (RAW_READ === 'auto' && typeof globalThis.Bun !== 'undefined')) return new Uint8Array(await response.arrayBuffer());
  const bytes = Buffer.allocUnsafe(Number(response.headers.get('content-length')));
  const reader = response.body.getReader();
  let filled = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes.subarray(0, filled);
    bytes.set(value, filled);
    filled += value.length;
  }
}

async function rawHttp(file) {
  const server = await startUrlPrinter(process.execPath, [RAW_HTTP], 'the raw HTTP media server', ENV);
  return {
    pid: server.pid,
    call: async () => bodyBytes(await fetch(server.url, { method: 'POST', body: file })),
    stop: server.stop,
  };
}

/** An MCP client of the media server; `native`: callToolNative (the bytes in hand), else callTool (base64). */
async function mcp(file, transport, pid, stop, native, tool = 'read_media_file') {
  const client = new Client({ name: 'measure-media-floor', version: '1' });
  await client.connect(transport);
  const request = tool === 'read_media_file' ? { name: tool, arguments: { path: file } } : { name: tool, arguments: {} };
  return {
    pid: pid(),
    call: async () => {
      const result = native ? await callToolNative(client, request) : await client.callTool(request);
      if (result.isError) throw new Error(JSON.stringify(result.content).slice(0, 300));
      return tool === 'read_media_file' ? result.content[0].data : undefined;
    },
    stop: async () => {
      await client.close().catch(() => {});
      await stop?.();
    },
  };
}

function oursStdio(dir, wire, tool, cli = OURS) {
  return (file) => {
    const transport = new StdioMsgpackClientTransport({ command: process.execPath, args: [cli, dir], stderr: 'ignore', env: ENV, wire, nativeBytes: wire === 'msgpack' });
    return mcp(file, transport, () => transport.pid, undefined, wire === 'msgpack', tool);
  };
}

function oursHttp(dir, stock, tool, cli = OURS) {
  return async (file) => {
    const server = await startUrlPrinter(process.execPath, [cli, '--http', '127.0.0.1:0', dir], 'the media server', ENV);
    const transport = stock ? new StreamableHTTPClientTransport(server.url) : new HttpMsgpackClientTransport(server.url, { wire: 'msgpack', nativeBytes: true });
    return mcp(file, transport, () => server.pid, server.stop, !stock, tool);
  };
}

/** Variants by transport: the reference first, then ours with native bytes, then (with --json) ours on JSON. */
function variants(dir) {
  const list = [
    { id: 'http raw', transport: 'http', start: rawHttp },
    { id: 'http native', transport: 'http', start: oursHttp(dir, false), reference: 'http raw' },
    { id: 'stdio raw', transport: 'stdio', start: async (file) => rawPipe(file) },
    { id: 'stdio native', transport: 'stdio', start: oursStdio(dir, 'msgpack'), reference: 'stdio raw' },
  ];
  if (WITH_JSON) {
    list.push({ id: 'http json (stock client)', transport: 'http', start: oursHttp(dir, true), native: 'http native' });
    list.push({ id: 'stdio json', transport: 'stdio', start: oursStdio(dir, 'json'), native: 'stdio native' });
  }
  if (OTHER) {
    // Another build's CLI (A/B): its rows against the same references, and this build's / its.
    list.push({ id: 'http native (other)', transport: 'http', start: oursHttp(dir, false, 'read_media_file', OTHER), reference: 'http raw', versus: 'http native' });
    list.push({ id: 'stdio native (other)', transport: 'stdio', start: oursStdio(dir, 'msgpack', 'read_media_file', OTHER), reference: 'stdio raw', versus: 'stdio native' });
  }
  if (WITH_SMALL) {
    // The same server and client answering a call with no file and no media: what any MCP call costs there.
    list.push({ id: 'http small call', transport: 'http', start: oursHttp(dir, false, 'list_allowed_directories'), reference: 'http raw' });
    list.push({ id: 'stdio small call', transport: 'stdio', start: oursStdio(dir, 'msgpack', 'list_allowed_directories'), reference: 'stdio raw' });
  }
  return list.filter((v) => !ONLY || v.transport === ONLY);
}

function bytesOf(data) {
  return typeof data === 'string' ? Buffer.from(data, 'base64').length : data.byteLength;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'media-floor-'));
const file = path.join(dir, 'poster.png');
const size = Math.round(MIB * 1024 * 1024);
fs.writeFileSync(file, randomBytes(size));
const running = [];
try {
  for (const variant of variants(dir)) running.push({ ...variant, server: await variant.start(file), cpu: [], p50: [], clientCpu: [] });
  for (const run of running) {
    for (let i = 0; i < WARMUP; i++) {
      const data = await run.server.call();
      const got = data === undefined ? size : bytesOf(data);
      if (got !== size) throw new Error(`${run.id}: ${got} bytes, expected ${size}`);
    }
  }
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate who goes first, so no variant always runs right after the same neighbour.
    const order = running.map((_, i) => running[(i + round) % running.length]);
    const times = new Map(order.map((run) => [run, []]));
    const clientCpu = new Map(order.map((run) => [run, 0]));
    const cpuBefore = new Map(order.map((run) => [run, cpuSample(run.server.pid)]));
    for (let call = 0; call < CALLS; call++) {
      for (const run of order) {
        const started = performance.now();
        const cpuStarted = process.cpuUsage();
        await run.server.call();
        times.get(run).push(performance.now() - started);
        const used = process.cpuUsage(cpuStarted);
        clientCpu.set(run, clientCpu.get(run) + (used.user + used.system) / 1000);
      }
    }
    for (const run of order) {
      run.cpu.push(cpuBetween(cpuBefore.get(run), cpuSample(run.server.pid)) / CALLS);
      run.p50.push(median(times.get(run)));
      run.clientCpu.push(clientCpu.get(run) / CALLS);
    }
  }
} finally {
  for (const run of running) await run.server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

const byId = new Map(running.map((run) => [run.id, run]));
const ratio = (a, b) => {
  const list = a.map((value, i) => value / b[i]).sort((x, y) => x - y);
  return `${median(list).toFixed(2)}x (${list[0].toFixed(2)}..${list.at(-1).toFixed(2)})`;
};
console.log(`read_media_file ${MIB} MiB, ${ROUNDS} rounds x ${CALLS} calls per variant, interleaved call by call; ${RUNTIME}; load average ${os.loadavg()[0].toFixed(1)}`);
if (Object.keys(EXTRA_ENV).length) console.log(`servers' extra environment: ${JSON.stringify(EXTRA_ENV)}`);
console.log(`${'variant'.padEnd(26)}${'server CPU ms/call'.padStart(20)}${'client p50 ms'.padStart(15)}${'client CPU ms/call'.padStart(20)}   ratios: median of rounds (range)`);
for (const run of running) {
  // ours / the reference; for a JSON row, native / this row (the media targets' direction).
  const [top, bottom, label] = run.reference ? [run, byId.get(run.reference), `/ ${run.reference}`] : run.native ? [byId.get(run.native), run, `${run.native} / this`] : [];
  let compared = top && bottom ? `${label}: CPU ${ratio(top.cpu, bottom.cpu)}, p50 ${ratio(top.p50, bottom.p50)}` : '';
  const versus = run.versus && byId.get(run.versus);
  if (versus) compared += `; ${run.versus} / this: CPU ${ratio(versus.cpu, run.cpu)}, p50 ${ratio(versus.p50, run.p50)}`;
  console.log(`${run.id.padEnd(26)}${median(run.cpu).toFixed(2).padStart(20)}${median(run.p50).toFixed(2).padStart(15)}${median(run.clientCpu).toFixed(2).padStart(20)}   ${compared}`);
}
