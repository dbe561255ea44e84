// Decode amplification (issue 12): sends one hostile msgpack-v1 frame to a real stdio server (the
// filesystem media server, as a child process), then a ping, and reports the child's peak RSS growth
// against the frame's size, the time to the error reply, and whether the ping was answered.
//   node scripts/measure-amplification.mjs [MiB=60] [shape=emptymap|emptyarr|map1|str2|nil|bin0|uniqmap|keyorders|mixed ...]
//   uniqmap-edge, keyorders-edge: as many such maps as the budget accepts, then one string [...]
// Numbers, not a test: the bounded version of this check is in the transport's hostile-input test.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CanonicalEncoder, FrameReader, MsgpackDecoder } from 'mcp-msgpack-transport/wire';

// MiB may be fractional: 0.999 measures just under 1 MiB.
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
  // The same 15 one-letter keys in a different order in each map: few keys, a hidden class per order prefix.
  keyorders: 'orders',
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
// keyorders: 46-byte maps {k1: nil, ..., k15: nil}, keys a..o shuffled differently in each.
const ORDER_BYTES = 46;
function writeOrderedMap(payload, at, i) {
  const keys = [...'abcdefghijklmno'];
  let seed = (i * 2654435761 + 1) >>> 0;
  for (let j = keys.length - 1; j > 0; j--) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const k = seed % (j + 1);
    [keys[j], keys[k]] = [keys[k], keys[j]];
  }
  payload[at] = 0x8f;
  keys.forEach((key, j) => {
    payload[at + 1 + 3 * j] = 0xa1;
    payload[at + 2 + 3 * j] = key.charCodeAt(0);
    payload[at + 3 + 3 * j] = 0xc0;
  });
}
const WRITERS = { uniq: [UNIQ_BYTES, writeUniqueMap], orders: [ORDER_BYTES, writeOrderedMap] };
const encoder = new CanonicalEncoder();
const root = mkdtempSync(join(tmpdir(), 'amp-'));
const bin = new URL('../packages/filesystem-media-server/bin/mcp-filesystem-media-server.js', import.meta.url).pathname;

/**
 * A tools/call request (id 7) whose params.junk is an array32 of copies of `unit` filling `bytes`; with
 * `units`, only that many copies, then one string filling the rest (cheap to build: one copy), so the frame
 * keeps its size and its cost is the units'.
 */
function hostileFrame(unit, bytes, itemsPerUnit = 1, units = undefined) {
  const writer = WRITERS[unit];
  const unitBytes = writer ? writer[0] : unit.length;
  const count = Math.min(units ?? Infinity, Math.floor(bytes / unitBytes));
  const filler = units === undefined ? 0 : Math.max(5, bytes - count * unitBytes);
  const head = Buffer.from(encoder.encode({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { junk: 0 } }));
  const prefix = head.subarray(0, head.length - 1); // drop the placeholder 0, splice the array in its place
  const payload = Buffer.alloc(prefix.length + 5 + unitBytes * count + filler, 0x78);
  prefix.copy(payload);
  payload[prefix.length] = 0xdd;
  payload.writeUInt32BE(count * itemsPerUnit + (filler > 0 ? 1 : 0), prefix.length + 1);
  for (let i = 0, at = prefix.length + 5; i < count; i++, at += unitBytes) {
    if (writer) writer[1](payload, at, i);
    else for (let j = 0; j < unit.length; j++) payload[at + j] = unit[j];
  }
  if (filler > 0) {
    payload[payload.length - filler] = 0xdb;
    payload.writeUInt32BE(filler - 5, payload.length - filler + 1);
  }
  const frame = Buffer.allocUnsafe(4 + payload.length);
  frame.writeUInt32BE(payload.length);
  payload.copy(frame, 4);
  return frame;
}

/** `shape-edge`: the most units of `shape` a receiver with the default budget accepts in a frame of this size. */
function edgeFrame(unit, bytes) {
  const decoder = new MsgpackDecoder({ decodePath: 'guard-then-msgpackr' });
  const accepted = (units) => {
    try {
      decoder.decode(hostileFrame(unit, bytes, 1, units).subarray(4));
      return true;
    } catch {
      return false;
    }
  };
  let [low, high] = [0, Math.floor(bytes / WRITERS[unit][0])];
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (accepted(mid)) low = mid;
    else high = mid - 1;
  }
  return hostileFrame(unit, bytes, 1, low);
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
  const edge = shape.endsWith('-edge');
  const frame = edge ? edgeFrame(UNITS[shape.slice(0, -5)], Math.floor(mib * 1024 * 1024)) : hostileFrame(UNITS[shape], Math.floor(mib * 1024 * 1024), ITEMS_PER_UNIT[shape]);
  const t0 = performance.now();
  child.stdin.write(frame);
  const answer = await waitFor(7);
  const ms = performance.now() - t0;
  child.stdin.write(encoder.encodeFrame({ jsonrpc: '2.0', id: 2, method: 'ping' }));
  const ping = await waitFor(2);
  const peak = hwm(child.pid);
  console.log(`${shape.padEnd(14)} frame ${(frame.length / 2 ** 20).toFixed(1)} MiB: peak RSS growth ${((peak - before) / frame.length).toFixed(2)}x the frame (${((peak - before) / 2 ** 20).toFixed(0)} MiB), ` +
    `${ms.toFixed(0)} ms to the reply (${answer.error ? `error ${answer.error.code}: ${answer.error.message.replace(/\s+/g, " ").slice(0, 60)}` : 'result'}), next ping ${ping.result ? 'answered' : 'FAILED'}`);
  child.kill();
}
