// Hostile msgpack-v1 payloads (issues 12 and 24): a tools/call request (id 7) whose params.junk is an array
// of copies of one small unit filling the payload, or (`shape-edge`) as many units as a receiver with the
// default decode budget accepts, then one string filling the rest. Used by amplification.mjs
// (stdio and HTTP) and the attack suite (http-attacks.mjs).
import { CanonicalEncoder, MsgpackDecoder } from 'mcp-msgpack-transport/wire';

export const UNITS = {
  emptymap: [0x80],
  emptyarr: [0x90],
  map1: [0x81, 0xa1, 0x61, 0x80],
  str2: [0xa2, 0x61, 0x62],
  // 3-byte strings: one word a byte at the old prices (a slot and a string), so accepted at any size.
  str3: [0xa3, 0x61, 0x62, 0x63],
  // Image blocks {type: "image", data: bin of 1 byte} (20 bytes: a map, a short string, a bin) in a retried
  // request's inputResponses, where native bytes may stand (SPEC.md 8.2): the server builds each bin, then
  // its base64 string. In a session with native bytes negotiated (HEADS below).
  imageblocks: [0x82, 0xa4, ...Buffer.from('type'), 0xa5, ...Buffer.from('image'), 0xa4, ...Buffer.from('data'), 0xc4, 0x01, 0x00],
  nil: [0xc0],
  // Empty bins: refused (no native bytes at an array item), but a server that may see bin on any message
  // (per-request negotiation, SPEC.md 8.1) built them all before refusing until bins were checked while decoding.
  bin0: [0xc4, 0x00],
  uniqmap: 'uniq',
  // The same 15 one-letter keys in a different order in each map: few keys, a hidden class per order prefix.
  keyorders: 'orders',
  // As many empty maps as the container budget allows (one per 8 bytes), the rest two-letter strings and nil.
  mixed: [0x80, 0xa2, 0x61, 0x62, 0xa2, 0x61, 0x62, 0xc0],
  // Pairs of small integers ([1, 2], 3 bytes): the densest plausible shape of real data.
  pairs: [0x92, 0x01, 0x02],
  // Not hostile, for comparison: rows of a directory listing, ["file", "name1.ts", "rw-", "12K", "root"]
  // (28 bytes: one array and five short strings, a word of built values a byte, as dense as real data gets).
  rows: [0x95, 0xa4, ...Buffer.from('file'), 0xa8, ...Buffer.from('name1.ts'), 0xa3, ...Buffer.from('rw-'), 0xa3, ...Buffer.from('12K'), 0xa4, ...Buffer.from('root')],
};
// With -edge: as many units as the default decode budget accepts (then one string). mixed-edge, str2-edge and
// pairs-edge meet the word budget (SPEC.md 4.1.9), uniqmap-edge and keyorders-edge the key budget.
export const SHAPES = [...Object.keys(UNITS), 'uniqmap-edge', 'keyorders-edge', 'mixed-edge', 'str2-edge', 'pairs-edge', 'str3-edge', 'imageblocks-edge', 'filler'];
// Array items per unit, where a unit holds more than one.
const ITEMS_PER_UNIT = { mixed: 4 };
// Where the array of units stands, for units that must stand elsewhere than params.junk (0: the array's place).
const HEADS = { imageblocks: { name: 'echo', inputResponses: { r: { content: 0 } } } };
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

/**
 * The payload of `bytes` for `unit`; with `units`, only that many copies, then one string filling the rest
 * (cheap to build: one copy), so the payload keeps its size and its cost is the units'.
 */
function unitPayload(unit, bytes, itemsPerUnit = 1, units = undefined, params = { junk: 0 }) {
  const writer = WRITERS[unit];
  const unitBytes = writer ? writer[0] : unit.length;
  const count = Math.min(units ?? Infinity, Math.floor(bytes / unitBytes));
  const filler = units === undefined ? 0 : Math.max(5, bytes - count * unitBytes);
  const head = Buffer.from(encoder.encode({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }));
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
  return payload;
}

/** `shape-edge`: the most units of `shape` a receiver with the default budget accepts in a payload of this size. */
function edgePayload(unit, bytes, itemsPerUnit = 1, params = undefined) {
  const decoder = new MsgpackDecoder({ decodePath: 'guard-then-msgpackr', allowBin: true });
  const accepted = (units) => {
    try {
      decoder.decode(unitPayload(unit, bytes, itemsPerUnit, units, params));
      return true;
    } catch {
      return false;
    }
  };
  let [low, high] = [0, Math.floor(bytes / (WRITERS[unit]?.[0] ?? unit.length))];
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (accepted(mid)) low = mid;
    else high = mid - 1;
  }
  return unitPayload(unit, bytes, itemsPerUnit, low, params);
}

/** The payload of one shape (a name of UNITS, or one with `-edge`) of about `bytes`. */
export function hostilePayload(shape, bytes) {
  // One string filling the payload: what its bytes alone cost, the baseline of the others.
  if (shape === 'filler') return unitPayload(UNITS.nil, bytes, 1, 0);
  if (shape.endsWith('-edge')) {
    const base = shape.slice(0, -5);
    return edgePayload(UNITS[base], bytes, ITEMS_PER_UNIT[base], HEADS[base]);
  }
  if (!(shape in UNITS)) throw new Error(`unknown shape ${shape} (known: ${SHAPES.join(', ')})`);
  return unitPayload(UNITS[shape], bytes, ITEMS_PER_UNIT[shape], undefined, HEADS[shape]);
}

/** The payload as a msgpack-v1 frame (4-byte big-endian length, then the payload). */
export function asFrame(payload) {
  const frame = Buffer.allocUnsafe(4 + payload.length);
  frame.writeUInt32BE(payload.length);
  payload.copy(frame, 4);
  return frame;
}
