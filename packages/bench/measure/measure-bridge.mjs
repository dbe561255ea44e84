// Measures what the bridge buys a desktop host, side by side in one run, interleaved round by round:
//   node packages/bench/measure/measure-bridge.mjs [--rounds N] [--big-calls N] [--small-calls N] [--no-mcp-remote]
// Variants, all calling the media server (its CLI, a separate process, over Streamable HTTP on loopback):
//   direct      the host's own JSON client (SDK StreamableHTTPClientTransport) straight to the server
//   bridge      the host's stdio client -> mcp-msgpack-bridge URL -> MessagePack with native bytes
//   mcp-remote  the host's stdio client -> mcp-remote URL (npm, installed into a temp dir now) -> JSON
// Figures: the server process's CPU per call (the bench's CPU reader), the bytes on the network leg (a counting TCP
// proxy in front of the server, both directions, headers included), the host's p50 per call, and the CPU per
// call of the relay process itself (the bridge, mcp-remote: the stdio child of the host's client).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  BIG,
  BRIDGE_BIN,
  CALL_LIMIT_MS,
  cpuMs,
  MEDIA_CLI,
  makeMeasureFolder,
  newRecord,
  optionOf,
  p50,
  ratio,
  runRounds,
  smallCall,
  startCountingProxy,
  startUrlPrinter,
  warmUp,
  withCleanups,
} from './lib/bridge-legs.mjs';

const args = process.argv.slice(2);
const ROUNDS = Number(optionOf(args, 'rounds', 3));
const BIG_CALLS = Number(optionOf(args, 'big-calls', 4));
const SMALL_CALLS = Number(optionOf(args, 'small-calls', 60));
const WITH_MCP_REMOTE = !args.includes('--no-mcp-remote');

const folder = makeMeasureFolder('measure-bridge-');
await withCleanups(async (cleanups) => {
  cleanups.push(folder.remove);
  const server = await startUrlPrinter(process.execPath, [MEDIA_CLI, '--http', '127.0.0.1:0', folder.dir], 'the media server');
  cleanups.push(server.stop);
  const proxy = await startCountingProxy(server.port);
  cleanups.push(proxy.close);
  const url = `http://127.0.0.1:${proxy.port}/mcp`;

  const variants = [
    { name: 'direct JSON (SDK HTTP client)', connect: () => new StreamableHTTPClientTransport(new URL(url)) },
    { name: 'mcp-msgpack-bridge', connect: () => stdio(process.execPath, [BRIDGE_BIN, url]) },
  ];
  if (WITH_MCP_REMOTE) {
    const entry = installMcpRemote(cleanups);
    if (entry) variants.push({ name: `mcp-remote ${entry.version}`, connect: () => stdio(process.execPath, [entry.path, url, '--transport', 'http-only', '--allow-http']) });
  }

  const records = [];
  for (const variant of variants) {
    const transport = variant.connect();
    const client = new Client({ name: 'measure-host', version: '1.0.0' });
    try {
      await client.connect(transport);
    } catch (error) {
      console.error(`${variant.name}: cannot connect (${error.message}); left out`);
      continue;
    }
    cleanups.push(() => client.close());
    // The relay's process, when the host's transport started one (stdio); the direct path has none.
    const relayPid = transport.pid ?? undefined;
    const meters = () => ({ server: cpuMs(server.pid), relay: relayPid ? cpuMs(relayPid) : 0, bytes: proxy.bytes() });
    const record = newRecord({ ...variant, client, relayPid, meters });
    if (await warmUp(record, bigCall, (r) => smallCall(r.client, folder.dir))) records.push(record);
  }
  await runRounds({ rounds: ROUNDS, records, bigCalls: BIG_CALLS, smallCalls: SMALL_CALLS, bigCall, smallCall: (r) => smallCall(r.client, folder.dir) });
  report(records);
});

async function bigCall({ client }) {
  const result = await client.callTool({ name: 'read_media_file', arguments: { path: folder.imagePath } }, undefined, { timeout: CALL_LIMIT_MS });
  const data = result.content?.[0]?.data;
  // Checked on every call: a variant that loses bytes does not get a figure.
  if (typeof data !== 'string' || data.length !== Math.ceil(BIG / 3) * 4) throw new Error('read_media_file returned the wrong size');
}

function stdio(command, commandArgs) {
  return new StdioClientTransport({ command, args: commandArgs, stderr: 'ignore' });
}

function report(records) {
  const direct = records[0];
  const perCall = (r, phase, meter) => r.spent[phase][meter] / r.calls[phase];
  console.log(
    `\nmedia server (separate process) <- counting proxy <- variant <- SDK v1 Client; ${ROUNDS} rounds x ${BIG_CALLS} calls of 5 MiB read_media_file + ${SMALL_CALLS} get_file_info, interleaved; Node ${process.version}\n`,
  );
  console.log('| path | 5 MiB: server CPU/call | vs direct | network bytes/call | vs direct | host p50 | vs direct | relay CPU/call | small call p50 | vs direct | relay CPU/small call |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of records) {
    const cpu = perCall(r, 'big', 'server');
    const bytes = perCall(r, 'big', 'bytes');
    const relay = (phase, digits) => (r.relayPid ? `${perCall(r, phase, 'relay').toFixed(digits)} ms` : '-');
    console.log(
      `| ${r.name} | ${cpu.toFixed(1)} ms | ${ratio(cpu, perCall(direct, 'big', 'server'))} | ${(bytes / 1048576).toFixed(2)} MiB | ${ratio(bytes, perCall(direct, 'big', 'bytes'))} | ${p50(r.big).toFixed(1)} ms | ${ratio(p50(r.big), p50(direct.big))} | ${relay('big', 1)} | ${p50(r.small).toFixed(2)} ms | ${ratio(p50(r.small), p50(direct.small))} | ${relay('small', 2)} |`,
    );
  }
  console.log('\nServer and relay CPU come from the bench CPU reader (every thread, /proc), summed over each block of calls; the direct path has no relay (-).');
}

/** mcp-remote from npm into a temp dir (not a dependency of the project); undefined when it cannot be had. */
function installMcpRemote(cleanups) {
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
