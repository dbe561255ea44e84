// The canonical encoder (wire/encoder.ts) on record-shaped replies against the runtime's JSON.stringify and
// msgpackr's pack, in one process: the tool-result messages of measure-http-server.mjs's object payloads
// (50 KB, 1 MB of records), encoded in alternating rounds, CPU time per message (process CPU, so the other
// processes of a loaded machine weigh less) and each encoder's ratio to JSON.stringify per round, then the
// median. This is what the 'cheapest-cpu' policy's records rule weighs on each runtime (runtime/bun.ts,
// runtime/node.ts), and what an encoder change is measured by. One more row, the policy's own walk
// (chooseWire with this runtime's break-even), is what every per-message reply pays before it is encoded.
//
//   bun packages/bench/measure/measure-record-encoder.mjs [--rounds 15] [--sizes 50,1024] [--before CHECKOUT] [--give-back]
//   node packages/bench/measure/measure-record-encoder.mjs
// --before CHECKOUT: that checkout's encoder (its packages/transport-msgpack/dist/esm) in the same rounds.
// --give-back: one more row, the canonical encoder with each message given back as soon as it is encoded, as the
// transports' writers do once the bytes are out: its arena and large-message buffer are reused rather than
// replaced (the plain row is a writer that never gives back).
// Not a test: numbers depend on the machine.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Packr } from 'msgpackr';
import { objectPayload } from './measure-http-server.mjs';

const option = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
};
const ROUNDS = Number(option('rounds', '15'));
const SIZES = option('sizes', '50,1024').split(',').map(Number);
const BEFORE = option('before', undefined);
const GIVE_BACK = process.argv.includes('--give-back');

const encoderOf = async (dist) => {
  const { CanonicalEncoder } = await import(pathToFileURL(resolve(dist, 'wire/encoder.js')).href);
  return new CanonicalEncoder();
};
const distHere = new URL('../../transport-msgpack/dist/esm/', import.meta.url).pathname;
// Plain MessagePack (no records extension, which msgpack-v1 does not have): a reference, not a wire of ours.
const packr = new Packr({ useRecords: false });
const { chooseWire } = await import(pathToFileURL(resolve(distHere, 'codec/encoding-policy.js')).href);
const { runtime: thisRuntime } = await import(pathToFileURL(resolve(distHere, 'runtime/current.js')).href);
const encoders = [
  { name: 'policy walk', encode: (v) => chooseWire(v, 'cheapest-cpu', thisRuntime.encodingBreakEven, () => false) },
  { name: 'canonical', encode: await encoderOf(distHere).then((e) => (v) => e.encode(v)) },
  { name: 'msgpackr pack', encode: (v) => packr.pack(v) },
  { name: 'JSON.stringify', encode: (v) => JSON.stringify(v) },
];
if (GIVE_BACK) {
  const { giveBackAll } = await import(pathToFileURL(resolve(distHere, 'buffers/lent-bytes.js')).href);
  const encoder = await encoderOf(distHere);
  encoders.splice(2, 0, { name: 'canonical, back', encode: (v) => giveBackAll(encoder.encodePieces(v)) });
}
if (BEFORE) encoders.unshift({ name: 'before canonical', encode: await encoderOf(resolve(BEFORE, 'packages/transport-msgpack/dist/esm')).then((e) => (v) => e.encode(v)) });

const cpuMicros = () => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

const runtime = typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node ${process.version}`;
console.log(`measure-record-encoder on ${runtime}: ${ROUNDS} alternating rounds; CPU us per message, median; ratio to JSON.stringify per round, median (range)\n`);
for (const kb of SIZES) {
  const message = { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'items' }], structuredContent: objectPayload(kb * 1024) } };
  const perRound = Math.max(5, Math.round(15_000 / kb));
  const times = encoders.map(() => []);
  for (const { encode } of encoders) for (let i = 0; i < perRound; i++) encode(message); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < encoders.length; k++) {
      const index = (k + r) % encoders.length;
      const start = cpuMicros();
      for (let i = 0; i < perRound; i++) encoders[index].encode(message);
      times[index].push((cpuMicros() - start) / perRound);
    }
  }
  const json = times.at(-1);
  for (let k = 0; k < encoders.length; k++) {
    const ratios = times[k].map((t, r) => t / json[r]).sort((a, b) => a - b);
    console.log(`${`${kb} KB`.padEnd(8)} ${encoders[k].name.padEnd(17)} ${median(times[k]).toFixed(1).padStart(9)} us   x${median(ratios).toFixed(2)} (${ratios[0].toFixed(2)}..${ratios.at(-1).toFixed(2)})`);
  }
}
