// The per-message encoding policy's own cost (SPEC.md 7.4, 9.6) on the cheapest call there is, the bench's
// small tools/call, against what sending that message costs anyway: the policy's pick, then the encoding it
// picked and a write to a stream, the way the stdio transport sends it. Interleaved rounds in one process:
//   node packages/bench/measure/measure-policy-cost.mjs [rounds=7]     (and: bun packages/bench/measure/measure-policy-cost.mjs)
// Build first (npm run build). Prints ns per message for each part and the pick's share of the whole send.
import { Writable } from 'node:stream';
import { JsonMessageCodec, MsgpackMessageCodec, NativeBytesAdapter } from 'mcp-msgpack-transport/wire';
// Internal modules, from the built package: the picker and this runtime's thresholds are not public API.
import { messageWirePicker } from '../../transport-msgpack/dist/esm/codec/encoding-policy.js';
import { runtime } from '../../transport-msgpack/dist/esm/runtime/current.js';

const rounds = Number(process.argv[2] ?? 7);
const ROUND_MS = 300;

// The bench's small call (packages/bench: tools 'small'), as each side sends it.
const request = { jsonrpc: '2.0', id: 1234, method: 'tools/call', params: { name: 'small', arguments: { n: 1234, tag: 'bench' } } };
const result = { jsonrpc: '2.0', id: 1234, result: { content: [{ type: 'text', text: 'ok bench 1234' }] } };

// The adapter a stdio server without native bytes negotiated has (placeholders still swapped for base64).
const adapter = new NativeBytesAdapter('server', { negotiate: false });
const pick = messageWirePicker('cheapest-cpu', runtime.encodingBreakEven, adapter);
const codecs = { json: new JsonMessageCodec({ adapter }), msgpack: new MsgpackMessageCodec({ adapter }) };
/** A stream that takes every write at once: the cost of write() itself, no I/O. */
const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });

let keep = 0;
const parts = {
  pick: (message) => {
    keep += pick(message).length;
  },
  'pick + encode + write': (message) => {
    const wire = pick(message);
    if (wire === 'json') sink.write(codecs.json.encodeLine(message));
    else for (const piece of codecs.msgpack.encodeFramePieces(message)) sink.write(piece);
  },
};

/** ns per call of `fn(message)`, over about ROUND_MS. */
function nsPer(fn, message) {
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ROUND_MS) {
    for (let i = 0; i < 1000; i++) fn(message);
    n += 1000;
    now = performance.now();
  }
  return ((now - start) * 1e6) / n;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const runtimeName = typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node ${process.versions.node}`;
console.log(`${runtimeName}, ${rounds} interleaved rounds of ${ROUND_MS} ms each; picks: request ${pick(request)}, result ${pick(result)}`);
for (const [name, message] of [
  ['request', request],
  ['result', result],
]) {
  const samples = Object.fromEntries(Object.keys(parts).map((part) => [part, []]));
  for (let round = 0; round < rounds; round++) for (const [part, fn] of Object.entries(parts)) samples[part].push(nsPer(fn, message));
  const pickNs = median(samples.pick);
  const wholeNs = median(samples['pick + encode + write']);
  console.log(`small-call ${name}: pick ${pickNs.toFixed(0)} ns, pick + encode + write ${wholeNs.toFixed(0)} ns: the pick is ${((100 * pickNs) / wholeNs).toFixed(1)}% of the send`);
}
if (keep < 0) console.log(keep);
