// Legitimate shapes next to the decode budget's word allowance (SPEC.md 4.1.9): for each, the largest array a
// tool result may hold within the HTTP server's default body cap (4 MiB), under the budget without the word
// allowance (the containers and keys only, as before it) and with it, and the heap an item takes once built
// (up to 200,000 items), decoded from MessagePack and parsed from JSON text by JSON.parse: what the JSON wire
// pays for the same content.
//   node --expose-gc packages/bench/measure/measure-budget-neighbours.mjs
import { CanonicalEncoder, MsgpackDecoder } from 'mcp-msgpack-transport/wire';

const encoder = new CanonicalEncoder();
const withWords = new MsgpackDecoder();
const withoutWords = new MsgpackDecoder({ decodeBudget: { wordBase: Number.POSITIVE_INFINITY } });
// The HTTP server's default maxMessageBytes (the transport README, "Bad input").
const CAP = 4 * 2 ** 20;
const letters = (i, n) => Array.from({ length: n }, (_, k) => String.fromCharCode(97 + ((i >> (k * 2)) % 26))).join('');

const SHAPES = {
  '[[int, int]] pairs, small': (i) => [i % 100, i % 7],
  '[[int, int]] pairs, up to 65,535': (i) => [(i * 7919) % 65_536, (i * 104_729) % 65_536],
  '[[float, float]] pairs': (i) => [i / 3, i / 7],
  'strings of 2 letters': (i) => letters(i, 2),
  'strings of 4 letters': (i) => letters(i, 4),
  'strings of 8 letters': (i) => letters(i, 8),
  'rows [file, name, mode, size, owner]': (i) => ['file', `n${i % 100_000}.ts`, 'rw-', `${i % 999}K`, 'root'],
  'records {id, ok}': (i) => ({ id: i, ok: i % 3 === 0 }),
  'records {x, y}, small': (i) => ({ x: i % 100, y: i % 7 }),
  'numbers, small integers': (i) => i % 100,
  'numbers, floats': (i) => i / 3,
};

const message = (item, count) => ({ jsonrpc: '2.0', id: 1, result: { items: Array.from({ length: count }, (_, i) => item(i)) } });
const accepts = (decoder, bytes) => {
  try {
    decoder.decode(bytes);
    return true;
  } catch {
    return false;
  }
};

/** The largest count whose message fits the cap and `decoder` accepts (binary search). */
function largest(item, decoder) {
  let [low, high] = [0, CAP]; // every item takes a byte at least
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    const bytes = encoder.encode(message(item, mid));
    if (bytes.length <= CAP && accepts(decoder, bytes)) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Heap growth of `build()`, per item of its `count`. */
function heapPerItem(build, count) {
  globalThis.gc?.();
  const before = process.memoryUsage().heapUsed;
  const value = build();
  const grown = process.memoryUsage().heapUsed - before;
  if (value.result.items.length !== count) throw new Error('not built');
  return grown / count;
}

/** Words of built values an item costs, as SPEC.md 4.1.9 counts them. */
function wordsOf(value) {
  if (typeof value === 'string') return 1 + (Buffer.byteLength(value) >= 2 && Buffer.byteLength(value) < 16 ? 6 : 0);
  if (value === null || typeof value !== 'object') return 1;
  return 8 + (Array.isArray(value) ? value : Object.values(value)).reduce((sum, v) => sum + wordsOf(v), 0);
}

if (typeof globalThis.gc !== 'function') console.error('(run with --expose-gc for steadier JSON.parse figures)');
console.log(`largest array accepted in a ${CAP / 2 ** 20} MiB body, ${process.version}`);
console.log('| items | words an item | msgpack bytes an item | largest without the word allowance | with it | heap an item, decoded from msgpack | JSON bytes an item | heap an item, JSON.parse |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const [name, item] of Object.entries(SHAPES)) {
  const before = largest(item, withoutWords);
  const now = largest(item, withWords);
  const perItem = (encoder.encode(message(item, 10_000)).length - encoder.encode(message(item, 0)).length) / 10_000;
  const count = Math.min(before, 200_000);
  const bytes = encoder.encode(message(item, count));
  const text = JSON.stringify(message(item, count));
  const fromMsgpack = heapPerItem(() => withoutWords.decode(bytes).value, count);
  const fromJson = heapPerItem(() => JSON.parse(text), count);
  const atCap = (n) => encoder.encode(message(item, n + 1)).length > CAP;
  const cell = (n) => `${n.toLocaleString('en-US')}${atCap(n) ? ' (the cap)' : ''}`;
  console.log(`| ${name} | ${wordsOf(item(1))} | ${perItem.toFixed(1)} | ${cell(before)} | ${cell(now)} | ${fromMsgpack.toFixed(0)} B | ${(text.length / count).toFixed(1)} | ${fromJson.toFixed(0)} B |`);
}
