// Measures the reverse mode (`mcp-msgpack-bridge --serve -- CHILD`) side by side in one run, interleaved round
// by round:
//   node packages/bench/measure/measure-reverse.mjs [--rounds N] [--big-calls N] [--small-calls N] [--child media|official]
//     [--bridge-runtime PATH]   (the runtime the bridge runs on, e.g. node_modules/bun/bin/bun.exe; default: this node)
// (The bounds under faults are packages/bench/stress/bridge-faults.mjs.)
// The child is a stdio JSON server: the media server's CLI (default; it speaks JSON to a JSON client) or, with
// --child official, @modelcontextprotocol/server-filesystem (which repeats the base64 in structuredContent).
// Variants, each on its own session (so its own child), all reading the same 5 MiB image:
//   ours        our HttpMsgpackClientTransport (native bytes) -> counting proxy -> bridge --serve -> child
//   ours-native the same, calling through callToolNative (the bytes stay bytes in the client too)
//   stdio       a stock SDK stdio client -> the child, no bridge and no network (what a local host does)
//   sdk-http    the SDK's JSON StreamableHTTPClientTransport -> counting proxy -> bridge --serve -> child
// Figures: bytes on the network leg (the proxy's sockets, both ways, headers included), the client's p50, the
// CPU per call of the bridge process and of the variant's own child (the bench's CPU reader).
import { readdirSync, readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { callToolNative, HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import {
  BIG,
  BRIDGE_BIN,
  CALL_LIMIT_MS,
  cpuMs,
  MEDIA_CLI,
  makeMeasureFolder,
  newRecord,
  OFFICIAL_FILESYSTEM,
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
const ROUNDS = Number(optionOf(args, 'rounds', 5));
const BIG_CALLS = Number(optionOf(args, 'big-calls', 4));
const SMALL_CALLS = Number(optionOf(args, 'small-calls', 30));
const CHILD_KIND = optionOf(args, 'child', 'media');
const BRIDGE_RUNTIME = optionOf(args, 'bridge-runtime', process.execPath);
const CHILDREN = { media: MEDIA_CLI, official: OFFICIAL_FILESYSTEM };
const CHILD = CHILDREN[CHILD_KIND];
if (!CHILD) throw new Error(`--child must be one of ${Object.keys(CHILDREN).join(', ')}`);

const folder = makeMeasureFolder('measure-reverse-');
const imagePath = folder.imagePath;
await withCleanups(async (cleanups) => {
  cleanups.push(folder.remove);
  const bridge = await startUrlPrinter(BRIDGE_RUNTIME, [BRIDGE_BIN, '--serve', '--', process.execPath, CHILD, folder.dir], 'the bridge');
  cleanups.push(bridge.stop);
  const proxy = await startCountingProxy(bridge.port);
  cleanups.push(proxy.close);
  const url = new URL(`http://127.0.0.1:${proxy.port}/mcp`);

  const variants = [
    {
      name: 'stock stdio client -> JSON stdio server (no bridge)',
      connect: () => new StdioClientTransport({ command: process.execPath, args: [CHILD, folder.dir], stderr: process.env.MEASURE_CHILD_STDERR ? 'inherit' : 'ignore' }),
      direct: true,
    },
    { name: 'SDK JSON HTTP client -> bridge --serve', connect: () => new StreamableHTTPClientTransport(url) },
    { name: 'our HTTP client (native bytes) -> bridge --serve', connect: () => new HttpMsgpackClientTransport(url, { nativeBytes: true }) },
    { name: 'our HTTP client, callToolNative -> bridge --serve', connect: () => new HttpMsgpackClientTransport(url, { nativeBytes: true }), native: true },
  ];

  const records = [];
  for (const variant of variants) {
    const known = bridgeChildren(bridge.pid);
    const transport = variant.connect();
    const client = new Client({ name: 'measure-reverse', version: '1.0.0' });
    await client.connect(transport);
    cleanups.push(() => client.close());
    // The child this session got: the one the bridge started meanwhile (or the stdio client's own).
    const childPid = variant.direct ? transport.pid : bridgeChildren(bridge.pid).find((pid) => !known.includes(pid));
    if (!childPid) throw new Error(`${variant.name}: cannot find its child process`);
    const meters = () => ({ bridge: cpuMs(bridge.pid), child: cpuMs(childPid), bytes: proxy.bytes() });
    const record = newRecord({ ...variant, client, meters });
    // A warm-up that fails leaves the variant out: e.g. the SDK's stdio clients refuse a line over 10 MiB
    // (server-filesystem's 5 MiB read is 14 MiB).
    if (await warmUp(record, bigCall, (r) => smallCall(r.client, folder.dir))) records.push(record);
  }
  await runRounds({ rounds: ROUNDS, records, bigCalls: BIG_CALLS, smallCalls: SMALL_CALLS, bigCall, smallCall: (r) => smallCall(r.client, folder.dir) });
  report(records);
});

async function bigCall(session) {
  const params = { name: 'read_media_file', arguments: { path: imagePath } };
  const result = session.native ? await callToolNative(session.client, params, { timeout: CALL_LIMIT_MS }) : await session.client.callTool(params, undefined, { timeout: CALL_LIMIT_MS });
  const data = result.content?.[0]?.data;
  // Checked on every call: a variant that loses bytes does not get a figure.
  const size = data instanceof Uint8Array ? data.byteLength : typeof data === 'string' ? Buffer.from(data, 'base64').byteLength : -1;
  if (size !== BIG) throw new Error(`${session.name}: read_media_file returned ${size} bytes`);
}

function report(sessions) {
  const perCall = (r, phase, meter) => r.spent[phase][meter] / r.calls[phase];
  const base = sessions.find((s) => s.direct) ?? { big: [NaN] };
  const http = sessions.find((s) => !s.direct && !s.native && s.name.startsWith('SDK'));
  console.log(
    `\nreverse mode, child: ${CHILD_KIND === 'media' ? 'the media server CLI on stdio (JSON)' : '@modelcontextprotocol/server-filesystem'}; ${ROUNDS} rounds x ${BIG_CALLS} calls of a 5 MiB read_media_file + ${SMALL_CALLS} get_file_info, interleaved; clients on Node ${process.version}, the bridge on ${BRIDGE_RUNTIME === process.execPath ? 'the same' : BRIDGE_RUNTIME}\n`,
  );
  console.log('| path | network bytes/call | vs SDK HTTP | client p50 | vs stdio | vs SDK HTTP | bridge CPU/call | child CPU/call | small call p50 | bridge CPU/small call |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const s of sessions) {
    const bytes = perCall(s, 'big', 'bytes');
    const bridgeCpu = s.direct ? '-' : `${perCall(s, 'big', 'bridge').toFixed(1)} ms`;
    const smallBridge = s.direct ? '-' : `${perCall(s, 'small', 'bridge').toFixed(2)} ms`;
    const network = s.direct ? 'none (stdio)' : `${(bytes / 1048576).toFixed(2)} MiB`;
    const networkRatio = s.direct ? '-' : ratio(bytes, perCall(http, 'big', 'bytes'));
    console.log(
      `| ${s.name} | ${network} | ${networkRatio} | ${p50(s.big).toFixed(1)} ms | ${ratio(p50(s.big), p50(base.big))} | ${ratio(p50(s.big), p50(http.big))} | ${bridgeCpu} | ${perCall(s, 'big', 'child').toFixed(1)} ms | ${p50(s.small).toFixed(2)} ms | ${smallBridge} |`,
    );
  }
  console.log('\nCPU comes from the bench CPU reader (every thread, /proc), summed over each block of calls; "child" is the stdio server the variant talks to.');
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
