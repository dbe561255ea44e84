// Measures what the bridge buys a desktop host, side by side in one run, interleaved round by round:
//   node packages/bench/measure/measure-bridge.mjs [--rounds N] [--big-calls N] [--small-calls N] [--no-mcp-remote]
// Variants, all calling the media server (its CLI, a separate process, over Streamable HTTP on loopback):
//   direct      the host's own JSON client (SDK StreamableHTTPClientTransport) straight to the server
//   bridge      the host's stdio client -> mcp-msgpack-bridge URL -> MessagePack with native bytes
//   mcp-remote  the host's stdio client -> mcp-remote URL (npm, installed into a temp dir now) -> JSON
// Figures: the server process's CPU per call (/proc/<pid>/stat), the bytes on the network leg (a counting TCP
// proxy in front of the server, both directions, headers included), the host's p50 per call, and the CPU per
// call of the relay process itself (the bridge, mcp-remote: the stdio child of the host's client).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cpuMs, startCountingProxy } from './lib/bridge-legs.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const ROUNDS = option('--rounds', 3);
const BIG_CALLS = option('--big-calls', 4);
const SMALL_CALLS = option('--small-calls', 60);
const WITH_MCP_REMOTE = !args.includes('--no-mcp-remote');
const BIG = 5 * 1024 * 1024;
const CALL_LIMIT_MS = 60_000;

const root = fileURLToPath(new URL('../../../', import.meta.url));
const MEDIA_CLI = join(root, 'packages/filesystem-media-server/dist/esm/cli.js');
const BRIDGE_BIN = join(root, 'packages/bridge/bin/mcp-msgpack-bridge.js');

const dir = mkdtempSync(join(tmpdir(), 'measure-bridge-'));
const imagePath = join(dir, 'big.png');
const image = randomBytes(BIG);
writeFileSync(imagePath, image);
writeFileSync(join(dir, 'small.txt'), 'hello\n');

const cleanups = [];
try {
  const server = await startMediaServer(dir);
  cleanups.push(server.stop);
  const proxy = await startCountingProxy(server.port);
  cleanups.push(proxy.close);
  const url = `http://127.0.0.1:${proxy.port}/mcp`;

  const variants = [
    { name: 'direct JSON (SDK HTTP client)', connect: () => connectClient(new StreamableHTTPClientTransport(new URL(url))) },
    { name: 'mcp-msgpack-bridge', connect: () => connectClient(stdio(process.execPath, [BRIDGE_BIN, url])) },
  ];
  if (WITH_MCP_REMOTE) {
    const entry = installMcpRemote();
    if (entry) variants.push({ name: `mcp-remote ${entry.version}`, connect: () => connectClient(stdio(process.execPath, [entry.path, url, '--transport', 'http-only', '--allow-http'])) });
  }

  const results = new Map(variants.map((v) => [v.name, { big: [], small: [], cpuMs: 0, bigCalls: 0, bytes: 0, smallCpuMs: 0, smallCalls: 0, smallBytes: 0, relayMs: 0, smallRelayMs: 0 }]));
  const clients = new Map();
  for (const variant of variants) {
    const client = await variant.connect().catch((error) => {
      console.error(`${variant.name}: cannot connect (${error.message}); left out`);
      return undefined;
    });
    if (!client) {
      results.delete(variant.name);
      continue;
    }
    // Warm-up: one big and a few small calls, so no variant pays for JIT or first connections in the figures.
    await bigCall(client);
    for (let i = 0; i < 5; i++) await smallCall(client);
    clients.set(variant.name, client);
    cleanups.push(() => client.close());
  }

  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, client] of clients) {
      const r = results.get(name);
      const cpu0 = cpuMs(server.pid);
      const relay0 = relayCpuMs(client);
      const bytes0 = proxy.bytes();
      for (let i = 0; i < BIG_CALLS; i++) {
        const start = performance.now();
        await bigCall(client);
        r.big.push(performance.now() - start);
      }
      r.cpuMs += cpuMs(server.pid) - cpu0;
      r.relayMs += relayCpuMs(client) - relay0;
      r.bytes += proxy.bytes() - bytes0;
      r.bigCalls += BIG_CALLS;
      const cpu1 = cpuMs(server.pid);
      const relay1 = relayCpuMs(client);
      const bytes1 = proxy.bytes();
      for (let i = 0; i < SMALL_CALLS; i++) {
        const start = performance.now();
        await smallCall(client);
        r.small.push(performance.now() - start);
      }
      r.smallCpuMs += cpuMs(server.pid) - cpu1;
      r.smallRelayMs += relayCpuMs(client) - relay1;
      r.smallBytes += proxy.bytes() - bytes1;
      r.smallCalls += SMALL_CALLS;
    }
  }
  report(results);
} finally {
  for (const cleanup of cleanups.reverse())
    await Promise.resolve()
      .then(cleanup)
      .catch(() => {});
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);

async function bigCall(client) {
  const result = await client.callTool({ name: 'read_media_file', arguments: { path: imagePath } }, undefined, { timeout: CALL_LIMIT_MS });
  const data = result.content?.[0]?.data;
  // Checked on every call: a variant that loses bytes does not get a figure.
  if (typeof data !== 'string' || data.length !== Math.ceil(BIG / 3) * 4) throw new Error('read_media_file returned the wrong size');
}

async function smallCall(client) {
  await client.callTool({ name: 'get_file_info', arguments: { path: join(dir, 'small.txt') } }, undefined, { timeout: CALL_LIMIT_MS });
}

function stdio(command, commandArgs) {
  return new StdioClientTransport({ command, args: commandArgs, stderr: 'ignore' });
}

async function connectClient(transport) {
  const client = new Client({ name: 'measure-host', version: '1.0.0' });
  await client.connect(transport);
  // The relay's process, when the host's transport started one (stdio); the direct path has none.
  client.relayPid = transport.pid ?? undefined;
  return client;
}

function relayCpuMs(client) {
  return client.relayPid ? cpuMs(client.relayPid) : 0;
}

function report(results) {
  const rows = [...results];
  const direct = rows[0][1];
  const p50 = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const ratio = (a, b) => (b > 0 ? `${(a / b).toFixed(2)}x` : 'n/a');
  const relay = (ms, calls, digits) => (ms > 0 || calls === 0 ? `${(ms / Math.max(calls, 1)).toFixed(digits)} ms` : '-');
  console.log(
    `\nmedia server (separate process) <- counting proxy <- variant <- SDK v1 Client; ${ROUNDS} rounds x ${BIG_CALLS} calls of 5 MiB read_media_file + ${SMALL_CALLS} get_file_info, interleaved; Node ${process.version}\n`,
  );
  console.log('| path | 5 MiB: server CPU/call | vs direct | network bytes/call | vs direct | host p50 | vs direct | relay CPU/call | small call p50 | vs direct | relay CPU/small call |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [name, r] of rows) {
    const cpu = r.cpuMs / r.bigCalls;
    const bytes = r.bytes / r.bigCalls;
    console.log(
      `| ${name} | ${cpu.toFixed(1)} ms | ${ratio(cpu, direct.cpuMs / direct.bigCalls)} | ${(bytes / 1048576).toFixed(2)} MiB | ${ratio(bytes, direct.bytes / direct.bigCalls)} | ${p50(r.big).toFixed(1)} ms | ${ratio(p50(r.big), p50(direct.big))} | ${relay(r.relayMs, r.bigCalls, 1)} | ${p50(r.small).toFixed(2)} ms | ${ratio(p50(r.small), p50(direct.small))} | ${relay(r.smallRelayMs, r.smallCalls, 2)} |`,
    );
  }
  console.log('\nServer and relay CPU come from /proc/<pid>/stat (10 ms ticks), summed over each block of calls; the direct path has no relay (-).');
}

function startMediaServer(root) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MEDIA_CLI, '--http', '127.0.0.1:0', root], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error('the media server printed no URL within 20 s')), 20_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      const port = Number(new URL(out.split('\n')[0].trim()).port);
      resolve({ pid: child.pid, port, stop: () => child.kill('SIGTERM') });
    });
    child.stderr.resume();
    child.once('exit', (code) => reject(new Error(`the media server exited (${code})`)));
  });
}

/** mcp-remote from npm into a temp dir (not a dependency of the project); undefined when it cannot be had. */
function installMcpRemote() {
  const prefix = mkdtempSync(join(tmpdir(), 'measure-mcp-remote-'));
  cleanups.push(() => rmSync(prefix, { recursive: true, force: true }));
  try {
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', '--prefix', prefix, 'mcp-remote@0.15.1'], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 180_000 });
    const dir = join(prefix, 'node_modules', 'mcp-remote');
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin['mcp-remote'];
    const path = join(dir, bin);
    if (!existsSync(path)) throw new Error(`no ${path}`);
    return { path, version: manifest.version };
  } catch (error) {
    console.error(`mcp-remote could not be installed here (${error.message}); left out`);
    return undefined;
  }
}
