// A/B of two builds of the media server's CLI: read_media_file of one 4 MiB file, per call, over stdio
// (MessagePack + native bytes, and JSON) and HTTP (MessagePack + native bytes), the two builds alternating
// round by round in one run (a fresh server process per build, mode and round). Not a test.
//   node packages/bench/measure/ab-media.mjs <before/cli.js> <after/cli.js> [rounds] [calls]
// Prints, per mode, after/before of the per-round median call time: the median ratio and its range.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callToolNative, HttpMsgpackClientTransport, StdioMsgpackClientTransport } from 'mcp-msgpack-transport';
import { startUrlPrinter } from './lib/child-server.mjs';

const [before, after, roundsArg, callsArg] = process.argv.slice(2);
if (!before || !after) throw new Error('usage: ab-media.mjs <before/cli.js> <after/cli.js> [rounds] [calls]');
const rounds = Number(roundsArg ?? 6);
const calls = Number(callsArg ?? 12);
const WARMUP = 2;
const RUNTIME = typeof globalThis.Bun !== 'undefined' ? `Bun ${globalThis.Bun.version}` : `Node ${process.version}`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fsms-ab-'));
const file = path.join(dir, 'photo.png');
fs.writeFileSync(file, randomBytes(4 * 1024 * 1024));

const startHttp = (cli) => startUrlPrinter(process.execPath, [cli, '--http', '127.0.0.1:0', dir], 'the media server');

const MODES = {
  'stdio msgpack native': async (cli) => ({ transport: new StdioMsgpackClientTransport({ command: process.execPath, args: [cli, dir], stderr: 'ignore', wire: 'msgpack', nativeBytes: true }), native: true }),
  'stdio json': async (cli) => ({ transport: new StdioMsgpackClientTransport({ command: process.execPath, args: [cli, dir], stderr: 'ignore', wire: 'json' }), native: false }),
  'http msgpack native': async (cli) => {
    const http = await startHttp(cli);
    return { transport: new HttpMsgpackClientTransport(http.url, { wire: 'msgpack', nativeBytes: true }), native: true, stop: http.stop };
  },
};

/** Median ms per read_media_file call on a fresh server. */
async function measure(cli, mode) {
  const { transport, native, stop } = await MODES[mode](cli);
  const client = new Client({ name: 'ab-media', version: '1.0.0' });
  await client.connect(transport);
  const times = [];
  try {
    for (let i = 0; i < WARMUP + calls; i++) {
      const started = performance.now();
      const request = { name: 'read_media_file', arguments: { path: file } };
      const result = native ? await callToolNative(client, request) : await client.callTool(request);
      if (result.isError) throw new Error(`${mode}: ${JSON.stringify(result.content).slice(0, 200)}`);
      if (i >= WARMUP) times.push(performance.now() - started);
    }
  } finally {
    await client.close();
    await stop?.();
  }
  return median(times);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const ratios = Object.fromEntries(Object.keys(MODES).map((mode) => [mode, []]));
const ms = Object.fromEntries(Object.keys(MODES).map((mode) => [mode, { before: [], after: [] }]));
try {
  for (let round = 0; round < rounds; round++) {
    for (const mode of Object.keys(MODES)) {
      // Alternate which build goes first, so neither always runs on a warmer machine.
      const order = round % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
      const got = {};
      for (const which of order) got[which] = await measure(which === 'before' ? before : after, mode);
      ms[mode].before.push(got.before);
      ms[mode].after.push(got.after);
      ratios[mode].push(got.after / got.before);
    }
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

console.log(`${rounds} rounds x ${calls} calls of read_media_file (4 MiB) per build and mode, on ${RUNTIME}`);
for (const [mode, list] of Object.entries(ratios)) {
  const sorted = [...list].sort((a, b) => a - b);
  console.log(
    `${mode.padEnd(22)} before ${median(ms[mode].before).toFixed(2)} ms, after ${median(ms[mode].after).toFixed(2)} ms; ` +
      `after/before median ${median(list).toFixed(3)} (range ${sorted[0].toFixed(2)}..${sorted.at(-1).toFixed(2)})`,
  );
}
