// Calibrates the 'cheapest-cpu' encoding policy (SPEC.md 9.6, codec/encoding-policy.ts) on the runtime that runs
// it: for each message shape, the encode + decode cost of one reply on each wire through the transport's own
// codecs (JSON: stringify, the text's UTF-8 bytes, parse; MessagePack: encode, decode on the runtime's decode
// path), interleaved round by round, then what the policy picks for it and what that pick costs. Run it on
// each runtime:
//   node packages/bench/measure/measure-encoding-policy.mjs [rounds=7] [filter]
//   bun packages/bench/measure/measure-encoding-policy.mjs [rounds=7] [filter]
// Build first (npm run build). Figures go to the transport README, "Per-message encoding".
import { diffText, reviewContext, seededRandom, shortStringRows, toolList } from '../dist/esm/payloads.js';
import { chooseWire, adapterNeedsMsgpack, shapeOf } from '../../transport-msgpack/dist/esm/codec/encoding-policy.js';
import { JsonMessageCodec } from '../../transport-msgpack/dist/esm/codec/json-codec.js';
import { MsgpackMessageCodec } from '../../transport-msgpack/dist/esm/codec/msgpack-codec.js';
import { NativeBytesAdapter } from '../../transport-msgpack/dist/esm/native-bytes/adapter.js';
import { runtime } from '../../transport-msgpack/dist/esm/runtime/current.js';

const rounds = Number(process.argv[2] ?? 7);
const filter = process.argv[3];
const ROUND_MS = 40;

const result = (id, value) => ({ jsonrpc: '2.0', id, result: value });
const textResult = (text) => result(1, { content: [{ type: 'text', text }] });

/** Plain prose: no character JSON escapes, JSON's best case for a string. */
function prose(chars, seed = 9) {
  const random = seededRandom(seed);
  const words = ['the', 'server', 'returns', 'a', 'list', 'of', 'files', 'and', 'their', 'sizes', 'when', 'asked', 'for'];
  let out = '';
  while (out.length < chars) out += words[Math.floor(random() * words.length)] + ' ';
  return out.slice(0, chars);
}

function numbers(count, seed, integers) {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => (integers ? Math.floor(random() * 100_000) : random() * 2 - 1));
}

const payloads = [
  ['small request', { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'small', arguments: { n: 7, tag: 'bench' } } }],
  ['small result', result(7, { content: [{ type: 'text', text: 'ok: 7' }] })],
  ['tools/list 3 tools', result(8, toolList(3))],
];
for (const chars of [128, 256, 512, 1024, 2048, 4096, 16384, 65536]) {
  payloads.push([`code text ${chars}`, textResult(diffText(chars))]);
  payloads.push([`prose text ${chars}`, textResult(prose(chars))]);
}
payloads.push(['records 50KB', result(2, { content: [{ type: 'text', text: 'review' }], structuredContent: reviewContext(50_000) })]);
// Between 50 KB and 1 MB, to find where records cross over on each runtime (the key-dense break-even).
for (const kb of [100, 200, 400]) payloads.push([`records ${kb}KB`, result(2, { content: [{ type: 'text', text: 'review' }], structuredContent: reviewContext(kb * 1000) })]);
payloads.push(['records 1MB', result(2, { content: [{ type: 'text', text: 'review' }], structuredContent: reviewContext(1_000_000) })]);
payloads.push(['short strings 50KB', result(4, { content: [{ type: 'text', text: 'listing' }], structuredContent: shortStringRows(50_000) })]);
payloads.push(['embedding 1536+1536', result(5, { content: [{ type: 'text', text: 'embedding' }], structuredContent: { floats: numbers(1536, 11, false), ints: numbers(1536, 12, true) } })]);
payloads.push([
  'series 100,000 points',
  result(6, { content: [{ type: 'text', text: 'series' }], structuredContent: { t: numbers(100_000, 13, true).map((v, i) => 1_700_000_000 + i * 60 + (v % 7)), v: numbers(100_000, 14, false) } }),
]);

const json = new JsonMessageCodec();
const msgpack = new MsgpackMessageCodec({ decodeBudget: undefined });
const te = new TextEncoder();
// The server side's adapter when native bytes are on: its needsMsgpack walks a reply's media fields.
const needsMsgpack = adapterNeedsMsgpack(new NativeBytesAdapter('server', {}));
const breakEven = runtime.encodingBreakEven;

/** ns per call of fn, over ROUND_MS. */
function timePer(fn) {
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ROUND_MS) {
    fn();
    n++;
    if ((n & 3) === 0) t = performance.now();
  }
  t = performance.now();
  return ((t - t0) * 1e6) / n;
}

const us = (ns) => (ns / 1000).toFixed(ns < 10_000 ? 2 : 0);

const name = typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node ${process.version}`;
console.log(`${name} (${runtime.name} thresholds: ${JSON.stringify(breakEven)}), ${rounds} interleaved rounds, fastest round per message`);
console.log(
  `${'message'.padEnd(24)} ${'bytes json/msgpack'.padStart(20)} ${'json us'.padStart(9)} ${'msgpack us'.padStart(10)} ${'mp/json'.padStart(8)} ${'enc/dec'.padStart(10)}  cheaper  policy  ${'policy us'.padStart(9)}  policy/cheaper`,
);
for (const [label, message] of payloads) {
  if (filter && !label.includes(filter)) continue;
  const jsonBytes = te.encode(json.encodeBody(message));
  const msgpackBytes = msgpack.encodeBody(message).slice();
  const fns = {
    jsonEncode: () => te.encode(json.encodeBody(message)),
    jsonDecode: () => json.decodeValue(jsonBytes),
    msgpackEncode: () => msgpack.encodeBody(message),
    msgpackDecode: () => msgpack.decodeValue(msgpackBytes),
    policy: () => chooseWire(message, 'cheapest-cpu', breakEven, needsMsgpack),
  };
  const names = Object.keys(fns);
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    // Alternate the order, so none always runs in another's wake (GC, caches).
    const order = r % 2 === 0 ? names : [...names].reverse();
    const round = {};
    for (const which of order) round[which] = timePer(fns[which]);
    for (const which of names) times[which].push(round[which]);
  }
  // The fastest round of each: on a loaded machine the minimum is the least disturbed figure.
  const t = Object.fromEntries(names.map((n) => [n, Math.min(...times[n])]));
  const j = t.jsonEncode + t.jsonDecode;
  const m = t.msgpackEncode + t.msgpackDecode;
  const p = t.policy;
  const ratio = m / j;
  const cheaper = ratio < 1 ? 'msgpack' : 'json';
  const pick = chooseWire(message, 'cheapest-cpu', breakEven, needsMsgpack);
  const shape = shapeOf(message);
  console.log(
    `${label.padEnd(24)} ${`${jsonBytes.length}/${msgpackBytes.length}`.padStart(20)} ${us(j).padStart(9)} ${us(m).padStart(10)} ${ratio.toFixed(2).padStart(7)}x ${`${(t.msgpackEncode / t.jsonEncode).toFixed(2)}/${(t.msgpackDecode / t.jsonDecode).toFixed(2)}`.padStart(10)}  ${cheaper.padEnd(7)}  ${pick.padEnd(7)} ${us(p).padStart(9)}  ${((p / Math.min(j, m)) * 100).toFixed(2)}%  (values ${shape.values}${shape.truncated ? `+, estimated ${Math.round(shape.estimatedValues)}` : ''}, keys ${shape.keys}, longest ${shape.longestString})`,
  );
}
