// What the Redis event store adds to the server CPU of a 5 MiB native-bytes read, for each way of handling
// large results, side by side in one run (rounds interleaved, so machine load hits all alike):
//   none        no event store (the baseline)
//   skip-large  the store, results over maxEventBytes (1 MiB, the default) not copied into Redis: a resume
//               of one gets an error in its place
//   store-all   the store with maxEventBytes above the result: every byte copied into Redis (what storing a
//               large result once with a short TTL would cost too: the copy is the cost, the TTL only frees
//               memory sooner)
// One instance of examples/scale/server.mjs per variant, called directly (no nginx) by a MessagePack session
// (native bytes negotiated); server CPU from /proc/<pid>/stat (utime + stime) around each batch.
//   node packages/bench/measure/measure-store-cpu.mjs [--rounds 4] [--calls 60]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createClient } from 'redis';
import { callToolNative, HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { missingBinaries, startProcess, startRedis, stopProcess } from '../../../scripts/lib/services.mjs';

const SERVER = fileURLToPath(new URL('../../../examples/scale/server.mjs', import.meta.url));
const MEDIA_BYTES = 5 * 1024 * 1024;
const argument = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
};
const ROUNDS = argument('rounds', 4);
const CALLS = argument('calls', 60);
const TICK_MS = 1000 / 100; // USER_HZ

const skip = missingBinaries(['redis-server']);
if (skip) {
  console.log(`measure-store-cpu skipped: ${skip}`);
  process.exit(0);
}

const VARIANTS = {
  none: ['--store', 'none'],
  'skip-large': [],
  'store-all': ['--max-event-bytes', String(8 * 1024 * 1024), '--max-stream-bytes', String(64 * 1024 * 1024), '--max-store-bytes', String(4 * 1024 * 1024 * 1024)],
};

function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime
}

const redis = await startRedis();
const instances = [];
try {
  for (const [name, args] of Object.entries(VARIANTS)) {
    let port;
    const child = await startProcess(process.execPath, [SERVER, '--port', '0', '--redis', redis.url, '--name', name, ...args], (output) => {
      port = /listening (\d+)/.exec(output)?.[1];
      return port !== undefined;
    });
    const client = new Client({ name: 'measure', version: '1' });
    const transport = new HttpMsgpackClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { wire: 'msgpack', nativeBytes: true });
    await client.connect(transport);
    instances.push({ name, child, client, transport, perCall: [] });
  }
  const call = (instance) => callToolNative(instance.client, { name: 'media', arguments: { bytes: MEDIA_BYTES } }, { timeout: 30_000 });
  for (const instance of instances) for (let i = 0; i < 10; i++) await call(instance); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const instance of instances) {
      const before = cpuMs(instance.child.pid);
      for (let i = 0; i < CALLS; i++) await call(instance);
      instance.perCall.push((cpuMs(instance.child.pid) - before) / CALLS);
    }
  }
  const probe = await createClient({ url: redis.url }).connect();
  const used = Number(/used_memory:(\d+)/.exec(await probe.info('memory'))[1]);
  await probe.quit();
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const base = median(instances[0].perCall);
  console.log(`server CPU per ${MEDIA_BYTES / 1024 / 1024} MiB native read, ${ROUNDS} interleaved rounds of ${CALLS} calls (median; all rounds):`);
  for (const instance of instances) {
    const value = median(instance.perCall);
    const added = instance === instances[0] ? '' : ` (${value >= base ? '+' : ''}${(((value - base) / base) * 100).toFixed(0)}%)`;
    console.log(`  ${instance.name.padEnd(10)} ${value.toFixed(2)} ms${added}   [${instance.perCall.map((v) => v.toFixed(2)).join(', ')}]`);
  }
  console.log(`Redis used_memory at the end: ${(used / 1024 / 1024).toFixed(1)} MiB`);
} finally {
  for (const instance of instances) {
    await instance.transport.terminateSession().catch(() => {});
    await instance.client.close().catch(() => {});
    await stopProcess(instance.child);
  }
  await redis.stop();
}
