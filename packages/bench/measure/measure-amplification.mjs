// Decode amplification (issues 12 and 24): sends one hostile msgpack-v1 payload to the filesystem media
// server, then a ping, and reports the server's peak RSS growth against the payload's size, the CPU it
// spent, the time to the answer, and whether the ping was answered. Both transports initialize first with
// native bytes offered (the server confirms), as a client of the media server does.
//   node packages/bench/measure/measure-amplification.mjs [MiB=60] [shape ...]         over stdio (the server as a child)
//   node packages/bench/measure/measure-amplification.mjs --http [MiB=4] [shape ...]   over HTTP (POST to a session)
//   bun packages/bench/measure/measure-amplification.mjs ...                           the same with the server on Bun
//   ... 1,4 [shape ...]   several sizes (MiB, comma-separated): each shape at each, then per shape the worst
//                          growth at each size and the line through the smallest and largest, growth =
//                          slope x payload + constant (what a payload costs per byte, and what a fresh
//                          server pays once whatever the size: compiled code, heap growth)
//   ... --repeat R        each shape R times at each size, each on a fresh server (the summary takes the worst)
//   ... --http --warm SHAPE ...   first sends one payload of SHAPE (`same`: the measured one) of the same
//                          size, has the server collect its garbage, then measures: the cost of a payload
//                          once the server has taken one that large (heap grown, code compiled), apart from
//                          that one-off cost, which the default (a cold server) includes. HTTP only: the
//                          stdio server cannot be asked to collect, and the warm payload's garbage would count.
// Shapes: emptymap emptyarr map1 str2 str3 nil bin0 imageblocks uniqmap keyorders mixed pairs rows (rows: not
// hostile, a directory listing's rows, for comparison), and uniqmap-edge, keyorders-edge, mixed-edge,
// str2-edge, pairs-edge, str3-edge, imageblocks-edge (as many such units as the decode budget accepts, then one
// string), and filler (one string: what the payload's bytes alone cost, the baseline);
// packages/bench/measure/lib/hostile-payloads.mjs.
// Over HTTP the server is packages/bench/measure/lib/media-http-child.mjs (McpHttpHandler as the CLI's --http sets it up,
// listenNode or listenBun), whose session negotiated native bytes (so bin may stand in its POSTs), with
// maxMessageBytes raised to fit the payload (the default, 4 MiB, answers a larger body 413 unread).
// Numbers, not a test: the bounded version of this check is in the transport's hostile-input test.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CanonicalEncoder, FrameReader, MsgpackDecoder } from 'mcp-msgpack-transport/wire';
import { asFrame, hostilePayload } from './lib/hostile-payloads.mjs';
import { startMediaChild } from './lib/media-http-driver.mjs';

const args = process.argv.slice(2);
const http = args[0] === '--http';
if (http) args.shift();
const warmAt = args.indexOf('--warm');
const warmShape = warmAt >= 0 ? args.splice(warmAt, 2)[1] : undefined;
if (warmShape && !http) throw new Error('--warm needs --http (the stdio server cannot be asked to collect the warm payload)');
const repeatAt = args.indexOf('--repeat');
const repeats = repeatAt >= 0 ? Number(args.splice(repeatAt, 2)[1]) : 1;
if (!(Number.isInteger(repeats) && repeats >= 1)) throw new Error('--repeat takes a whole number of runs, 1 or more');
// MiB may be fractional (0.999 measures just under 1 MiB), and a comma-separated list of sizes.
const sizes = String(args[0] ?? (http ? 4 : 60))
  .split(',')
  .map(Number)
  .sort((a, b) => a - b);
const shapes = args.length > 1 ? args.slice(1) : ['emptymap', 'emptyarr', 'map1', 'str2', 'nil'];
const runtime = typeof globalThis.Bun !== 'undefined' ? 'bun' : 'node';
const encoder = new CanonicalEncoder();
const decoder = new MsgpackDecoder();
const root = mkdtempSync(join(tmpdir(), 'amp-'));
const bin = new URL('../../filesystem-media-server/bin/mcp-filesystem-media-server.js', import.meta.url).pathname;
const ANSWER_TIMEOUT_MS = 120_000;

const statusOf = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
/** User + system CPU of a process, in ms (/proc/PID/stat fields 14 and 15, in clock ticks of 10 ms). */
const cpuMsOf = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** One measurement over stdio: a fresh server child per shape. */
async function overStdio(payload) {
  const child = spawn(process.execPath, [bin, root], { stdio: ['pipe', 'pipe', 'inherit'] });
  const replies = new Map();
  const frames = new FrameReader();
  child.stdout.on('data', (chunk) =>
    frames.push(chunk, (p) => {
      const m = decoder.decode(p).value;
      replies.set(m.id, m);
    }),
  );
  const waitFor = (id) =>
    new Promise((resolve, reject) => {
      const deadline = performance.now() + ANSWER_TIMEOUT_MS;
      const t = setInterval(() => {
        if (replies.has(id)) {
          clearInterval(t);
          resolve(replies.get(id));
        } else if (performance.now() > deadline) {
          clearInterval(t);
          reject(new Error(`no answer to ${id}`));
        }
      }, 5);
    });
  try {
    // As a client does, with native bytes negotiated (so bin may stand at media fields, as over HTTP).
    child.stdin.write(encoder.encodeFrame(initializeWithNativeBytes));
    await waitFor(0);
    child.stdin.write(encoder.encodeFrame({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    child.stdin.write(encoder.encodeFrame({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    await waitFor(1);
    const before = statusOf(child.pid, 'VmRSS');
    const cpu = cpuMsOf(child.pid);
    const t0 = performance.now();
    child.stdin.write(asFrame(payload));
    const answer = await waitFor(7);
    const ms = performance.now() - t0;
    child.stdin.write(encoder.encodeFrame({ jsonrpc: '2.0', id: 2, method: 'ping' }));
    const ping = await waitFor(2);
    return { growth: statusOf(child.pid, 'VmHWM') - before, cpuMs: cpuMsOf(child.pid) - cpu, ms, answer, pinged: ping.result !== undefined };
  } finally {
    child.kill();
  }
}

const nativeBytesOffer = { extensions: { 'io.github.mcp-msgpack/native-bytes': { version: 1 } }, experimental: { 'mcp-msgpack/native-bytes': { version: 1 } } };
const initializeWithNativeBytes = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: nativeBytesOffer, clientInfo: { name: 'amplification', version: '1' } } };

const MSGPACK_HEADERS = { 'content-type': 'application/msgpack', accept: 'application/msgpack, application/vnd.mcp-msgpack.stream' };

/** A POST of msgpack bytes; the answer (the last message of a stream, or the one body) and its status. */
async function post(url, sessionId, body) {
  const headers = { ...MSGPACK_HEADERS, ...(sessionId ? { 'mcp-session-id': sessionId } : {}) };
  const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
  const bytes = Buffer.from(await response.arrayBuffer());
  let message;
  if (response.headers.get('content-type') === 'application/vnd.mcp-msgpack.stream') new FrameReader().push(bytes, (p) => (message = decoder.decode(p).value));
  else if (bytes.length > 0) message = decoder.decode(bytes).value;
  return { status: response.status, message, sessionId: response.headers.get('mcp-session-id') };
}

/** One measurement over HTTP: a fresh server child per shape, a session with native bytes negotiated. */
async function overHttp(payload, warm) {
  const child = await startMediaChild({ runtime, dir: root, handlerOptions: { maxMessageBytes: payload.length + 1024 } });
  try {
    const init = await post(child.url, undefined, encoder.encode(initializeWithNativeBytes));
    if (!init.message?.result?.capabilities?.extensions?.['io.github.mcp-msgpack/native-bytes']) throw new Error('native bytes not confirmed');
    await post(child.url, init.sessionId, encoder.encode({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    await post(child.url, init.sessionId, encoder.encode({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    if (warm) {
      await post(child.url, init.sessionId, warm);
      await child.gc();
    }
    const before = await child.resetHwm();
    const t0 = performance.now();
    const answer = await post(child.url, init.sessionId, payload);
    const ms = performance.now() - t0;
    const ping = await post(child.url, init.sessionId, encoder.encode({ jsonrpc: '2.0', id: 2, method: 'ping' }));
    const after = await child.stats();
    return {
      growth: after.hwm - before.rss,
      cpuMs: after.cpuMs - before.cpuMs,
      ms,
      answer: answer.message ?? { error: { code: answer.status, message: 'no body' } },
      status: answer.status,
      pinged: ping.message?.result !== undefined,
    };
  } finally {
    await child.stop();
  }
}

console.log(
  `${http ? 'HTTP' : 'stdio'}, server on ${runtime} ${runtime === 'bun' ? globalThis.Bun.version : process.version}, ${sizes.join(' and ')} MiB` +
    `${warmShape ? `, after one ${warmShape} payload of that size` : ', cold'}${repeats > 1 ? `, ${repeats} runs each` : ''}, load average ${loadavg()[0].toFixed(1)}`,
);
// The worst growth (bytes) of each shape at each size, for the summary.
const worst = new Map();
for (const shape of shapes) {
  for (const mib of sizes) {
    const payload = hostilePayload(shape, Math.floor(mib * 1024 * 1024));
    const warm = warmShape ? hostilePayload(warmShape === 'same' ? shape : warmShape, Math.floor(mib * 1024 * 1024)) : undefined;
    for (let run = 0; run < repeats; run++) {
      const { growth, cpuMs, ms, answer, status, pinged } = await (http ? overHttp : overStdio)(payload, warm);
      const what = answer.error ? `${status ? `${status} ` : ''}error ${answer.error.code}: ${String(answer.error.message).replace(/\s+/g, ' ').slice(0, 60)}` : 'result';
      console.log(
        `${shape.padEnd(14)} payload ${(payload.length / 2 ** 20).toFixed(2)} MiB: peak RSS growth ${(growth / payload.length).toFixed(2)}x (${(growth / 2 ** 20).toFixed(0)} MiB), ` +
          `CPU ${cpuMs.toFixed(0)} ms, ${ms.toFixed(0)} ms to the answer (${what}), next ping ${pinged ? 'answered' : 'FAILED'}`,
      );
      const key = `${shape} ${mib}`;
      const before = worst.get(key);
      if (!before || growth > before.growth) worst.set(key, { growth, bytes: payload.length });
    }
  }
}
if (sizes.length > 1 || repeats > 1) {
  console.log(
    `worst of ${repeats} run(s), growth / payload at ${sizes.map((m) => `${m} MiB`).join(', ')}${sizes.length > 1 ? '; the line through the first and last: growth = slope x payload + constant' : ''}`,
  );
  for (const shape of shapes) {
    const points = sizes.map((mib) => worst.get(`${shape} ${mib}`));
    const ratios = points.map((p) => `${(p.growth / p.bytes).toFixed(1)}x`).join(' ');
    let line = '';
    if (points.length > 1) {
      const [first, last] = [points[0], points[points.length - 1]];
      const slope = (last.growth - first.growth) / (last.bytes - first.bytes);
      line = `, slope ${slope.toFixed(1)}, constant ${((first.growth - slope * first.bytes) / 2 ** 20).toFixed(1)} MiB`;
    }
    console.log(`${shape.padEnd(16)} ${ratios}${line}`);
  }
}
