// Measures the reverse mode (`mcp-msgpack-bridge --serve -- CHILD`) side by side in one run, interleaved round
// by round:
//   node packages/bridge/scripts/measure-reverse.mjs [--rounds N] [--big-calls N] [--small-calls N] [--child media|official]
//     [--bridge-runtime PATH]   (the runtime the bridge runs on, e.g. node_modules/bun/bin/bun.exe; default: this node)
//     [--faults]                the bounds under faults instead (stalled child, unread GET stream, churn, SIGTERM)
// The child is a stdio JSON server: the media server's CLI (default; it speaks JSON to a JSON client) or, with
// --child official, @modelcontextprotocol/server-filesystem (which repeats the base64 in structuredContent).
// Variants, each on its own session (so its own child), all reading the same 5 MiB image:
//   ours        our HttpMsgpackClientTransport (native bytes) -> counting proxy -> bridge --serve -> child
//   ours-native the same, calling through callToolNative (the bytes stay bytes in the client too)
//   stdio       a stock SDK stdio client -> the child, no bridge and no network (what a local host does)
//   sdk-http    the SDK's JSON StreamableHTTPClientTransport -> counting proxy -> bridge --serve -> child
// Figures: bytes on the network leg (the proxy's sockets, both ways, headers included), the client's p50, the
// CPU per call of the bridge process and of the variant's own child (/proc/<pid>/stat).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HttpMsgpackClientTransport, callToolNative } from 'mcp-msgpack-transport';
import { cpuMs, startCountingProxy } from './lib/measure.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const ROUNDS = Number(option('--rounds', 5));
const BIG_CALLS = Number(option('--big-calls', 4));
const SMALL_CALLS = Number(option('--small-calls', 30));
const CHILD_KIND = option('--child', 'media');
const BRIDGE_RUNTIME = option('--bridge-runtime', process.execPath);
const BIG = 5 * 1024 * 1024;
const CALL_LIMIT_MS = 60_000;

const root = fileURLToPath(new URL('../../../', import.meta.url));
const BRIDGE_BIN = join(root, 'packages/bridge/bin/mcp-msgpack-bridge.js');
const CHILDREN = {
  media: join(root, 'packages/filesystem-media-server/dist/esm/cli.js'),
  official: join(root, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'),
};
const CHILD = CHILDREN[CHILD_KIND];
if (!CHILD) throw new Error(`--child must be one of ${Object.keys(CHILDREN).join(', ')}`);

const dir = mkdtempSync(join(tmpdir(), 'measure-reverse-'));
if (args.includes('--faults')) {
  // The bounds under faults instead of the throughput table (scripts/lib/serve-faults.mjs).
  const { measureFaults } = await import('./lib/serve-faults.mjs');
  await measureFaults({ dir, bridgeBin: BRIDGE_BIN, runtime: BRIDGE_RUNTIME }).finally(() => rmSync(dir, { recursive: true, force: true }));
  process.exit(0);
}
const imagePath = join(dir, 'big.png');
writeFileSync(imagePath, randomBytes(BIG));
writeFileSync(join(dir, 'small.txt'), 'hello\n');

const cleanups = [];
try {
  const bridge = await startBridge([process.execPath, CHILD, dir]);
  cleanups.push(bridge.stop);
  const proxy = await startCountingProxy(bridge.port);
  cleanups.push(proxy.close);
  const url = new URL(`http://127.0.0.1:${proxy.port}/mcp`);

  const variants = [
    {
      name: 'stock stdio client -> JSON stdio server (no bridge)',
      connect: () => new StdioClientTransport({ command: process.execPath, args: [CHILD, dir], stderr: process.env.MEASURE_CHILD_STDERR ? 'inherit' : 'ignore' }),
      direct: true,
    },
    { name: 'SDK JSON HTTP client -> bridge --serve', connect: () => new StreamableHTTPClientTransport(url) },
    { name: 'our HTTP client (native bytes) -> bridge --serve', connect: () => new HttpMsgpackClientTransport(url, { nativeBytes: true }) },
    { name: 'our HTTP client, callToolNative -> bridge --serve', connect: () => new HttpMsgpackClientTransport(url, { nativeBytes: true }), native: true },
  ];

  const sessions = [];
  for (const variant of variants) {
    const known = bridgeChildren(bridge.pid);
    const transport = variant.connect();
    const client = new Client({ name: 'measure-reverse', version: '1.0.0' });
    await client.connect(transport);
    cleanups.push(() => client.close());
    // The child this session got: the one the bridge started meanwhile (or the stdio client's own).
    const childPid = variant.direct ? transport.pid : bridgeChildren(bridge.pid).find((pid) => !known.includes(pid));
    if (!childPid) throw new Error(`${variant.name}: cannot find its child process`);
    const session = { ...variant, client, childPid, big: [], small: [], bridgeMs: 0, childMs: 0, bytes: 0, calls: 0, smallBridgeMs: 0, smallCalls: 0 };
    // Warm-up: one big and a few small calls, so no variant pays for JIT or first connections in the figures.
    try {
      await bigCall(session);
      for (let i = 0; i < 5; i++) await smallCall(session);
    } catch (error) {
      // E.g. the SDK's stdio clients refuse a line over 10 MiB (server-filesystem's 5 MiB read is 14 MiB).
      console.error(`${variant.name}: left out, its warm-up call failed (${error.message})`);
      continue;
    }
    sessions.push(session);
  }

  for (let round = 0; round < ROUNDS; round++) {
    for (const session of sessions) {
      const bridge0 = cpuMs(bridge.pid);
      const child0 = cpuMs(session.childPid);
      const bytes0 = proxy.bytes();
      for (let i = 0; i < BIG_CALLS; i++) {
        const start = performance.now();
        await bigCall(session);
        session.big.push(performance.now() - start);
      }
      session.bridgeMs += cpuMs(bridge.pid) - bridge0;
      session.childMs += cpuMs(session.childPid) - child0;
      session.bytes += proxy.bytes() - bytes0;
      session.calls += BIG_CALLS;
      const bridge1 = cpuMs(bridge.pid);
      for (let i = 0; i < SMALL_CALLS; i++) {
        const start = performance.now();
        await smallCall(session);
        session.small.push(performance.now() - start);
      }
      session.smallBridgeMs += cpuMs(bridge.pid) - bridge1;
      session.smallCalls += SMALL_CALLS;
    }
  }
  report(sessions);
} finally {
  for (const cleanup of cleanups.reverse())
    await Promise.resolve()
      .then(cleanup)
      .catch(() => {});
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);

async function bigCall(session) {
  const params = { name: 'read_media_file', arguments: { path: imagePath } };
  const result = session.native ? await callToolNative(session.client, params, { timeout: CALL_LIMIT_MS }) : await session.client.callTool(params, undefined, { timeout: CALL_LIMIT_MS });
  const data = result.content?.[0]?.data;
  // Checked on every call: a variant that loses bytes does not get a figure.
  const size = data instanceof Uint8Array ? data.byteLength : typeof data === 'string' ? Buffer.from(data, 'base64').byteLength : -1;
  if (size !== BIG) throw new Error(`${session.name}: read_media_file returned ${size} bytes`);
}

async function smallCall(session) {
  await session.client.callTool({ name: 'get_file_info', arguments: { path: join(dir, 'small.txt') } }, undefined, { timeout: CALL_LIMIT_MS });
}

function report(sessions) {
  const p50 = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const base = sessions.find((s) => s.direct) ?? { big: [NaN] };
  const http = sessions.find((s) => !s.direct && !s.native && s.name.startsWith('SDK'));
  const ratio = (a, b) => (b > 0 ? `${(a / b).toFixed(2)}x` : 'n/a');
  console.log(
    `\nreverse mode, child: ${CHILD_KIND === 'media' ? 'the media server CLI on stdio (JSON)' : '@modelcontextprotocol/server-filesystem'}; ${ROUNDS} rounds x ${BIG_CALLS} calls of a 5 MiB read_media_file + ${SMALL_CALLS} get_file_info, interleaved; clients on Node ${process.version}, the bridge on ${BRIDGE_RUNTIME === process.execPath ? 'the same' : BRIDGE_RUNTIME}\n`,
  );
  console.log('| path | network bytes/call | vs SDK HTTP | client p50 | vs stdio | vs SDK HTTP | bridge CPU/call | child CPU/call | small call p50 | bridge CPU/small call |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const s of sessions) {
    const bytes = s.bytes / s.calls;
    const bridgeCpu = s.direct ? '-' : `${(s.bridgeMs / s.calls).toFixed(1)} ms`;
    const smallBridge = s.direct ? '-' : `${(s.smallBridgeMs / s.smallCalls).toFixed(2)} ms`;
    const network = s.direct ? 'none (stdio)' : `${(bytes / 1048576).toFixed(2)} MiB`;
    const networkRatio = s.direct ? '-' : ratio(bytes, http.bytes / http.calls);
    console.log(
      `| ${s.name} | ${network} | ${networkRatio} | ${p50(s.big).toFixed(1)} ms | ${ratio(p50(s.big), p50(base.big))} | ${ratio(p50(s.big), p50(http.big))} | ${bridgeCpu} | ${(s.childMs / s.calls).toFixed(1)} ms | ${p50(s.small).toFixed(2)} ms | ${smallBridge} |`,
    );
  }
  console.log('\nCPU comes from /proc/<pid>/stat (10 ms ticks), summed over each block of calls; "child" is the stdio server the variant talks to.');
}

/** The bridge's child processes (Linux: every thread's `children` list). */
function bridgeChildren(pid) {
  const pids = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const list = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
    if (list) pids.push(...list.split(' ').map(Number));
  }
  return pids;
}

function startBridge(childCommand) {
  return new Promise((resolve, reject) => {
    const child = spawn(BRIDGE_RUNTIME, [BRIDGE_BIN, '--serve', '--', ...childCommand], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error('the bridge printed no URL within 20 s')), 20_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      const port = Number(new URL(out.split('\n')[0].trim()).port);
      resolve({ pid: child.pid, port, stop: () => child.kill('SIGTERM') });
    });
    child.stderr.resume();
    child.once('exit', (code) => reject(new Error(`the bridge exited (${code})`)));
  });
}
