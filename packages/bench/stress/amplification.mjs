// Decode amplification (issues 12 and 24; SPEC.md 4.1.9): sends one hostile msgpack-v1 payload to the
// filesystem media server, then a ping, and reports the server's peak RSS growth against the payload's size,
// the CPU it spent, the time to the answer, and whether the next ping was answered. A fresh server per
// payload; both transports initialize with native bytes offered (the server confirms), as its clients do.
//   node packages/bench/stress/amplification.mjs [--http] [MiB[,MiB...]] [shape ...] [--repeat R]
//   bun  packages/bench/stress/amplification.mjs ...       the same with the server on Bun
// Default: 60 MiB over stdio, 4 MiB over HTTP (whose default limit, 4 MiB, is raised to fit the payload);
// shapes are hostile-payloads.mjs's (default: emptymap emptyarr map1 str2 nil). Several sizes give, per
// shape, the worst growth at each and the line through the first and last: growth = slope x payload +
// constant (what a payload byte costs, and what a fresh server pays once). Memory and CPU are read from
// outside by the bench's readers (/proc; Linux).
import { spawn } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readProcessCpuNs, readRss, resetPeakRss } from 'mcp-msgpack-bench';
import { CanonicalEncoder, FrameReader, MsgpackDecoder } from 'mcp-msgpack-transport/wire';
import { asFrame, hostilePayload } from './hostile-payloads.mjs';
import { makeMediaLayout, MiB, startMediaServer } from './media-driver.mjs';

const ANSWER_TIMEOUT_MS = 120_000;
const encoder = new CanonicalEncoder();
const decoder = new MsgpackDecoder();
const NATIVE = { 'io.github.mcp-msgpack/native-bytes': { version: 1 } };
const INITIALIZE = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { extensions: NATIVE }, clientInfo: { name: 'amplification', version: '1' } } };
const ping = (id) => ({ jsonrpc: '2.0', id, method: 'ping' });
const cpuMs = (pid) => (readProcessCpuNs(pid) ?? Number.NaN) / 1e6;

/** The media server's command (its package's bin), to start it over stdio. */
function mediaServerBin() {
  const manifest = createRequire(import.meta.url).resolve('mcp-filesystem-media-server/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8'));
  return join(dirname(manifest), typeof bin === 'string' ? bin : Object.values(bin)[0]);
}

/** One payload over stdio, to a fresh server child. */
async function overStdio(payload, dir) {
  const child = spawn(process.execPath, [mediaServerBin(), dir], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map();
  const frames = new FrameReader();
  child.stdout.on('data', (chunk) =>
    frames.push(chunk, (p) => {
      const message = decoder.decode(p).value;
      waiting.get(message.id)?.(message);
    }),
  );
  const send = (message, id) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${id}`)), ANSWER_TIMEOUT_MS);
      waiting.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      child.stdin.write(Buffer.isBuffer(message) ? asFrame(message) : encoder.encodeFrame(message));
    });
  try {
    await send(INITIALIZE, 0);
    child.stdin.write(encoder.encodeFrame({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    await send(ping(1), 1);
    resetPeakRss(child.pid);
    const [before, cpu, t0] = [readRss(child.pid).rss, cpuMs(child.pid), performance.now()];
    const answer = await send(payload, 7);
    const ms = performance.now() - t0;
    const pinged = (await send(ping(2), 2)).result !== undefined;
    return { growth: readRss(child.pid).peak - before, cpuMs: cpuMs(child.pid) - cpu, ms, answer, pinged };
  } finally {
    child.kill();
  }
}

/** A POST of msgpack bytes: the answer (the one body, or a stream's last message), its status, the session. */
async function post(url, sessionId, body) {
  const headers = { 'content-type': 'application/msgpack', accept: 'application/msgpack, application/vnd.mcp-msgpack.stream', ...(sessionId ? { 'mcp-session-id': sessionId } : {}) };
  const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
  const bytes = Buffer.from(await response.arrayBuffer());
  let message;
  if (response.headers.get('content-type') === 'application/vnd.mcp-msgpack.stream') new FrameReader().push(bytes, (p) => (message = decoder.decode(p).value));
  else if (bytes.length > 0) message = decoder.decode(bytes).value;
  return { status: response.status, message, sessionId: response.headers.get('mcp-session-id') };
}

/** One payload over HTTP, to a fresh server child, in a session with native bytes negotiated. */
async function overHttp(payload, dir, runtime) {
  const server = await startMediaServer({ runtime, dir, handlerOptions: { maxMessageBytes: payload.length + 1024 } });
  try {
    const init = await post(server.url, undefined, encoder.encode(INITIALIZE));
    if (!init.message?.result?.capabilities?.extensions?.['io.github.mcp-msgpack/native-bytes']) throw new Error('native bytes not confirmed');
    await post(server.url, init.sessionId, encoder.encode({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    await post(server.url, init.sessionId, encoder.encode(ping(1)));
    server.resetPeak();
    const before = await server.stats();
    const t0 = performance.now();
    const answer = await post(server.url, init.sessionId, payload);
    const ms = performance.now() - t0;
    const pinged = (await post(server.url, init.sessionId, encoder.encode(ping(2)))).message?.result !== undefined;
    const after = await server.stats();
    return { growth: after.peak - before.rss, cpuMs: after.cpuMs - before.cpuMs, ms, answer: answer.message ?? { error: { code: answer.status, message: 'no body' } }, status: answer.status, pinged };
  } finally {
    await server.stop();
  }
}

/** Each shape at each size, `repeats` times; the rows, and per shape the worst growth at each size. */
export async function measureAmplification({ http = false, sizes, shapes, repeats = 1, log = console.log }) {
  const runtime = typeof globalThis.Bun !== 'undefined' ? 'bun' : 'node';
  const layout = makeMediaLayout();
  const rows = [];
  try {
    for (const shape of shapes) {
      for (const size of sizes) {
        const payload = hostilePayload(shape, Math.floor(size * MiB));
        for (let run = 0; run < repeats; run++) {
          const row = { shape, bytes: payload.length, ...(await (http ? overHttp(payload, layout.root, runtime) : overStdio(payload, layout.root))) };
          rows.push(row);
          const what = row.answer.error ? `${row.status ? `${row.status} ` : ''}error ${row.answer.error.code}: ${String(row.answer.error.message).replace(/\s+/g, ' ').slice(0, 60)}` : 'result';
          log(
            `${shape.padEnd(14)} payload ${(payload.length / MiB).toFixed(2)} MiB: peak RSS growth ${(row.growth / payload.length).toFixed(2)}x (${(row.growth / MiB).toFixed(0)} MiB), ` +
              `CPU ${row.cpuMs.toFixed(0)} ms, ${row.ms.toFixed(0)} ms to the answer (${what}), next ping ${row.pinged ? 'answered' : 'FAILED'}`,
          );
        }
      }
    }
  } finally {
    layout.cleanup();
  }
  return rows;
}

/** Per shape: the worst growth / payload at each size and, with two sizes or more, slope and constant. */
function summary(rows, shapes, sizes) {
  for (const shape of shapes) {
    const worst = sizes.map((size) => {
      const bytes = Math.floor(size * MiB);
      return rows.filter((r) => r.shape === shape && Math.abs(r.bytes - bytes) < 4096).reduce((a, b) => (b.growth > a.growth ? b : a));
    });
    let line = '';
    if (worst.length > 1) {
      const [first, last] = [worst[0], worst.at(-1)];
      const slope = (last.growth - first.growth) / (last.bytes - first.bytes);
      line = `, slope ${slope.toFixed(1)}, constant ${((first.growth - slope * first.bytes) / MiB).toFixed(1)} MiB`;
    }
    console.log(`${shape.padEnd(16)} ${worst.map((p) => `${(p.growth / p.bytes).toFixed(1)}x`).join(' ')}${line}`);
  }
}

// Run as a command (run.mjs imports measureAmplification instead).
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const http = args[0] === '--http';
  if (http) args.shift();
  const repeatAt = args.indexOf('--repeat');
  const repeats = repeatAt >= 0 ? Number(args.splice(repeatAt, 2)[1]) : 1;
  if (!(Number.isInteger(repeats) && repeats >= 1)) throw new Error('--repeat takes a whole number of runs, 1 or more');
  const sizes = String(args[0] ?? (http ? 4 : 60))
    .split(',')
    .map(Number)
    .sort((a, b) => a - b);
  const shapes = args.length > 1 ? args.slice(1) : ['emptymap', 'emptyarr', 'map1', 'str2', 'nil'];
  const runtime = typeof globalThis.Bun !== 'undefined' ? `bun ${globalThis.Bun.version}` : `node ${process.version}`;
  console.log(`${http ? 'HTTP' : 'stdio'}, server on ${runtime}, ${sizes.join(' and ')} MiB, cold${repeats > 1 ? `, ${repeats} runs each` : ''}, load average ${loadavg()[0].toFixed(1)}`);
  const rows = await measureAmplification({ http, sizes, shapes, repeats });
  if (sizes.length > 1 || repeats > 1) {
    console.log(`worst of ${repeats} run(s), growth / payload at ${sizes.map((m) => `${m} MiB`).join(', ')}`);
    summary(rows, shapes, sizes);
  }
}
