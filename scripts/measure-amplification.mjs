// Decode amplification (issue 12): sends one hostile msgpack-v1 frame to a real stdio server (the
// filesystem media server, as a child process), then a ping, and reports the child's peak RSS growth
// against the frame's size, the time to the error reply, and whether the ping was answered.
//   node scripts/measure-amplification.mjs [MiB=60] [shape=emptymap|emptyarr|map1|str2|nil|bin0|uniqmap|mixed ...]
// Numbers, not a test: the bounded version of this check is in the transport's hostile-input test.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CanonicalEncoder, FrameReader, MsgpackDecoder } from 'mcp-msgpack-transport/wire';

const mib = Number(process.argv[2] ?? 60);
const shapes = process.argv.length > 3 ? process.argv.slice(3) : ['emptymap', 'emptyarr', 'map1', 'str2', 'nil'];
const UNITS = {
  emptymap: [0x80],
  emptyarr: [0x90],
  map1: [0x81, 0xa1, 0x61, 0x80],
  str2: [0xa2, 0x61, 0x62],
  nil: [0xc0],
  // Empty bins: refused (no native bytes at an array item), but a server that may see bin on any message
  // (per-request negotiation, SPEC.md 8.1) built them all before refusing until bins were checked while decoding.
  bin0: [0xc4, 0x00],
  uniqmap: 'uniq',
  // As many empty maps as the budget allows (one per 8 bytes), the rest two-letter strings and nil.
  mixed: [0x80, 0xa2, 0x61, 0x62, 0xa2, 0x61, 0x62, 0xc0],
};
// Array items per unit, where a unit holds more than one.
const ITEMS_PER_UNIT = { mixed: 4 };
// uniqmap: 8-byte one-entry maps, each with a key no other map has ({"00001": nil}, {"00002": nil}, ...).
const UNIQ_BYTES = 8;
function writeUniqueMap(payload, at, i) {
  payload[at] = 0x81;
  payload[at + 1] = 0xa5;
  payload.write(i.toString(36).padStart(5, '0'), at + 2, 'latin1');
  payload[at + 7] = 0xc0;
}
const encoder = new CanonicalEncoder();
const root = mkdtempSync(join(tmpdir(), 'amp-'));
const bin = new URL('../packages/filesystem-media-server/bin/mcp-filesystem-media-server.js', import.meta.url).pathname;

/** A tools/call request (id 7) whose params.junk is an array32 of `count` copies of `unit`. */
function hostileFrame(unit, bytes, itemsPerUnit = 1) {
  const unitBytes = unit === 'uniq' ? UNIQ_BYTES : unit.length;
  const count = Math.floor(bytes / unitBytes);
  const head = Buffer.from(encoder.encode({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { junk: 0 } }));
  const prefix = head.subarray(0, head.length - 1); // drop the placeholder 0, splice the array in its place
  const payload = Buffer.allocUnsafe(prefix.length + 5 + unitBytes * count);
  prefix.copy(payload);
  payload[prefix.length] = 0xdd;
  payload.writeUInt32BE(count * itemsPerUnit, prefix.length + 1);
  for (let i = 0, at = prefix.length + 5; i < count; i++, at += unitBytes) {
    if (unit === 'uniq') writeUniqueMap(payload, at, i);
    else for (let j = 0; j < unit.length; j++) payload[at + j] = unit[j];
  }
  const frame = Buffer.allocUnsafe(4 + payload.length);
  frame.writeUInt32BE(payload.length);
  payload.copy(frame, 4);
  return frame;
}

const hwm = (pid) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;

for (const shape of shapes) {
  const child = spawn(process.execPath, [bin, root], { stdio: ['pipe', 'pipe', 'inherit'] });
  const replies = new Map();
  const frames = new FrameReader();
  const decoder = new MsgpackDecoder();
  child.stdout.on('data', (chunk) => frames.push(chunk, (p) => { const m = decoder.decode(p).value; replies.set(m.id, m); }));
  const waitFor = (id) => new Promise((resolve) => { const t = setInterval(() => { if (replies.has(id)) { clearInterval(t); resolve(replies.get(id)); } }, 5); });
  child.stdin.write(encoder.encodeFrame({ jsonrpc: '2.0', id: 1, method: 'ping' }));
  await waitFor(1);
  const before = rss(child.pid);
  const frame = hostileFrame(UNITS[shape], mib * 1024 * 1024, ITEMS_PER_UNIT[shape]);
  const t0 = performance.now();
  child.stdin.write(frame);
  const answer = await waitFor(7);
  const ms = performance.now() - t0;
  child.stdin.write(encoder.encodeFrame({ jsonrpc: '2.0', id: 2, method: 'ping' }));
  const ping = await waitFor(2);
  const peak = hwm(child.pid);
  console.log(`${shape.padEnd(9)} frame ${(frame.length / 2 ** 20).toFixed(1)} MiB: peak RSS growth ${((peak - before) / frame.length).toFixed(2)}x the frame (${((peak - before) / 2 ** 20).toFixed(0)} MiB), ` +
    `${ms.toFixed(0)} ms to the reply (${answer.error ? `error ${answer.error.code}: ${answer.error.message.replace(/\s+/g, " ").slice(0, 60)}` : 'result'}), next ping ${ping.result ? 'answered' : 'FAILED'}`);
  child.kill();
}
