// Where a media server's CPU goes, by thread: one server (the media server's CLI over HTTP, read with our client
// and native bytes, or the raw node:http file server of lib/raw-media-http.mjs), a warm-up, then N reads of one
// 5 MiB file, with every thread's run time (/proc/PID/task/*/schedstat) and the main thread's user and system
// time (/proc/PID/task/PID/stat, 10 ms ticks) read before and after. Tells JavaScript on the main thread from
// the kernel's copies and from the other threads (libuv's pool reading the file, V8's collector and compiler),
// which measure-media-floor.mjs adds up. Not a test. Linux only.
//   node packages/bench/measure/measure-media-threads.mjs [--server ours|raw] [--calls 300] [--warmup 150] [--cli CLI] [--node-flag FLAG]...
// --node-flag (repeatable) starts the server's node with that flag (e.g. --perf-basic-prof for perf, or a V8 flag).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callToolNative, HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { startUrlPrinter } from './lib/child-server.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const SERVER = option('--server', 'ours');
const CALLS = Number(option('--calls', 300));
const WARMUP = Number(option('--warmup', 150));
const CLI = path.resolve(option('--cli', fileURLToPath(new URL('../../filesystem-media-server/dist/esm/cli.js', import.meta.url))));
const NODE_FLAGS = args.flatMap((arg, i) => (args[i - 1] === '--node-flag' ? [arg] : []));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'media-threads-'));
const file = path.join(dir, 'image.png');
fs.writeFileSync(file, randomBytes(5 * 1024 * 1024));

/** The server and one call of it. */
async function start() {
  if (SERVER === 'raw') {
    const server = await startUrlPrinter(process.execPath, [...NODE_FLAGS, fileURLToPath(new URL('./lib/raw-media-http.mjs', import.meta.url))], 'the raw HTTP media server');
    const call = async () => {
      const reader = (await fetch(server.url, { method: 'POST', body: file })).body.getReader();
      while (!(await reader.read()).done);
    };
    return { server, call };
  }
  const server = await startUrlPrinter(process.execPath, [...NODE_FLAGS, CLI, '--http', '127.0.0.1:0', dir], 'the media server');
  const client = new Client({ name: 'measure-media-threads', version: '1' });
  await client.connect(new HttpMsgpackClientTransport(server.url, { wire: 'msgpack', nativeBytes: true }));
  const call = async () => {
    const result = await callToolNative(client, { name: 'read_media_file', arguments: { path: file } });
    if (result.isError) throw new Error(JSON.stringify(result.content).slice(0, 300));
  };
  return { server, call };
}

/** Every live thread's run time (ns), and the main thread's user and system ticks. */
function sample(pid) {
  const threads = new Map();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      threads.set(tid, Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // The thread exited meanwhile.
    }
  }
  const stat = fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { threads, user: Number(fields[11]), system: Number(fields[12]) };
}

const { server, call } = await start();
try {
  for (let i = 0; i < WARMUP; i++) await call();
  const before = sample(server.pid);
  for (let i = 0; i < CALLS; i++) await call();
  const after = sample(server.pid);
  let main = 0;
  let others = 0;
  for (const [tid, ns] of after.threads) {
    const spent = ns - (before.threads.get(tid) ?? 0);
    if (tid === String(server.pid)) main += spent;
    else others += spent;
  }
  const ms = (ns) => (ns / CALLS / 1e6).toFixed(2);
  const tickMs = (ticks) => ((ticks * 10) / CALLS).toFixed(2);
  console.log(
    `${SERVER}: ${CALLS} reads of 5 MiB after ${WARMUP}, ms per call: all threads ${ms(main + others)}, main thread ${ms(main)} ` +
      `(user ${tickMs(after.user - before.user)}, system ${tickMs(after.system - before.system)}), other threads ${ms(others)}`,
  );
} finally {
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
