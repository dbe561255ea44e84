// guardPayload and guardedDecode (the single-pass decoder), directly, through MsgpackDecoder on each decode
// path and through MsgpackMessageCodec: everything msgpack-v1 refuses is refused before
// msgpackr runs, with a clear PayloadError code, and nothing of a refused value reaches the application.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Packr } from 'msgpackr';
import { DEFAULT_DECODE_BUDGET, PayloadError, type PayloadErrorCode } from 'mcp-msgpack-transport';
import {
  CanonicalEncoder,
  MsgpackDecoder,
  MsgpackMessageCodec,
  containerAllowance,
  guardPayload,
  guardedDecode,
  shortKeyAllowance,
  wordAllowance,
  type DecodePath,
  type GuardOptions,
} from 'mcp-msgpack-transport/wire';
import { type EdgeFixture, decodeBudgetOf, edgeAcceptances, edgeRefusals } from './fixtures/edge-fixtures.js';

const bytes = (...parts: (number | number[] | Uint8Array)[]): Uint8Array => new Uint8Array(parts.flatMap((p) => (typeof p === 'number' ? [p] : [...p])));

/** The two ways of checking a payload, each with the MsgpackDecoder path that uses it: every test below runs on both. */
const SCANS: Array<[string, (payload: Uint8Array, options: GuardOptions) => { containsBin: boolean }, DecodePath]> = [
  ['guardPayload', guardPayload, 'guard-then-msgpackr'],
  ['guardedDecode', guardedDecode, 'single-pass'],
];
/** An array32 of `count` copies of `unit`: the shape of the memory-amplification attack. */
function arrayOf(unit: number[], count: number): Uint8Array {
  const payload = new Uint8Array(5 + unit.length * count);
  payload[0] = 0xdd;
  new DataView(payload.buffer).setUint32(1, count);
  for (let i = 0; i < count; i++) payload.set(unit, 5 + i * unit.length);
  return payload;
}

const payloadError =
  (code: PayloadErrorCode, pattern?: RegExp) =>
  (e: unknown): boolean => {
    assert.ok(e instanceof PayloadError, `expected a PayloadError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  };

/** Bin (a Buffer from msgpackr, a Uint8Array in a source) as plain bytes, to compare decoded values with sources. */
function comparable(value: unknown): unknown {
  if (value instanceof Uint8Array) return { bytes: [...value] };
  if (Array.isArray(value)) return value.map(comparable);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, comparable(v)]));
  return value;
}

/** A request payload whose params.value is `inner` (raw MessagePack bytes), for refusals inside a message. */
function requestAround(inner: Uint8Array, id: string | number = 5): Uint8Array {
  const marker = 'INNER-VALUE-MARKER';
  const encoded = new CanonicalEncoder().encode({ jsonrpc: '2.0', id, method: 'tools/call', params: { value: marker } });
  const markerBytes = new CanonicalEncoder().encode(marker);
  const at = Buffer.from(encoded).indexOf(Buffer.from(markerBytes));
  return bytes(encoded.subarray(0, at), inner, encoded.subarray(at + markerBytes.length));
}

for (const [scanName, scan, decodePath] of SCANS) {
  const guard = (payload: Uint8Array, allowBin = false) => scan(payload, { maxDepth: 128, allowBin, maxContainers: Infinity });

  describe(scanName, () => {
    describe('guard: ext types', () => {
      // Every ext header form, and the private extensions msgpackr honours even when told not to produce them.
      const standardForms: [string, Uint8Array][] = [
        ['fixext1', bytes(0xd4, 0x01, 0x00)],
        ['fixext2', bytes(0xd5, 0x01, 0, 0)],
        ['fixext4', bytes(0xd6, 0x01, 0, 0, 0, 0)],
        ['fixext8', bytes(0xd7, 0x01, ...new Array(8).fill(0))],
        ['fixext16', bytes(0xd8, 0x01, ...new Array(16).fill(0))],
        ['ext8', bytes(0xc7, 0x03, 0x01, 1, 2, 3)],
        ['ext16', bytes(0xc8, 0x00, 0x03, 0x01, 1, 2, 3)],
        ['ext32', bytes(0xc9, 0x00, 0x00, 0x00, 0x03, 0x01, 1, 2, 3)],
        ['timestamp (-1)', bytes(0xd6, 0xff, 0, 0, 0, 0)],
        ['msgpackr undefined (0)', bytes(0xd4, 0x00, 0x00)],
      ];
      const msgpackrPrivate: [string, Uint8Array][] = [
        ['records 0x72', new Packr({ useRecords: true }).pack({ a: 1, b: 2 })],
        ['bundled strings 0x62', new Packr({ bundleStrings: true, useRecords: false }).pack({ text: 'a'.repeat(40), more: 'b'.repeat(40) })],
        ['RegExp 0x78', new Packr({ moreTypes: true, useRecords: false }).pack(/ab+c/gi)],
        ['Error 0x65', new Packr({ moreTypes: true, useRecords: false }).pack(new Error('boom'))],
        ['Set 0x73', new Packr({ moreTypes: true, useRecords: false }).pack(new Set([1, 2]))],
        ['typed array 0x74', new Packr({ moreTypes: true, useRecords: false }).pack(new Float32Array([1]))],
        [
          'reference target 0x69 / pointer 0x70',
          (() => {
            const shared = { a: 1 };
            return new Packr({ structuredClone: true, useRecords: false }).pack({ x: shared, y: shared });
          })(),
        ],
        ['hand-made pointer 0x70', bytes(0xd6, 0x70, 0, 0, 0, 1)],
        ['hand-made record 0x72', bytes(0xd4, 0x72, 0x40, 0x91, 0xa1, 0x61, 0x01)],
      ];

      it('sanity: the msgpackr samples really hold the ext types they are named after', () => {
        for (const [name, payload] of msgpackrPrivate) {
          const type = Number.parseInt(/0x([0-9a-f]{2})/.exec(name)![1]!, 16);
          const hex = Buffer.from(payload).toString('hex');
          assert.ok(/d[4-8]|c[7-9]/.test(hex) && hex.includes(type.toString(16)), `${name}: ${hex}`);
        }
      });

      for (const [name, payload] of [...standardForms, ...msgpackrPrivate]) {
        it(`refuses ${name} at the top level and inside a message, with forbidden-type`, () => {
          assert.throws(() => guard(payload), payloadError('forbidden-type', /ext type/));
          let reached = false;
          const codec = new MsgpackMessageCodec({
            adapter: { toWire: (m) => m, fromWire: (v) => ((reached = true), v), binAllowed: true },
          });
          assert.throws(() => codec.decodeMessage(payload), payloadError('forbidden-type'));
          assert.throws(
            () => codec.decodeMessage(requestAround(payload)),
            (e: unknown) => {
              payloadError('forbidden-type')(e);
              assert.deepEqual((e as PayloadError).clues, { id: 5, hasMethod: true, hasResultOrError: false });
              return true;
            },
          );
          assert.equal(reached, false, 'a refused payload must never reach the message layer');
        });
      }

      it('refuses the reserved type 0xc1, alone and inside a message', () => {
        assert.throws(() => guard(bytes(0xc1)), payloadError('forbidden-type', /0xc1/));
        assert.throws(() => guard(requestAround(bytes(0xc1))), payloadError('forbidden-type'));
      });
    });

    describe('guard: bin', () => {
      const bins = [bytes(0xc4, 0x02, 1, 2), bytes(0xc5, 0x00, 0x02, 1, 2), bytes(0xc6, 0, 0, 0, 0x02, 1, 2)];
      it('refuses bin8/16/32 unless bin is allowed', () => {
        for (const bin of bins) {
          assert.throws(() => guard(bin), payloadError('forbidden-type', /bin/));
          assert.throws(() => guard(requestAround(bin)), payloadError('forbidden-type'));
          assert.equal(guard(bin, true).containsBin, true);
          assert.equal(guard(requestAround(bin), true).containsBin, true);
        }
        assert.equal(guard(requestAround(bytes(0xa0)), true).containsBin, false);
      });

      it('with binOnlyAtMediaKeys, refuses a bin anywhere but as a data or blob member, before reading its length', () => {
        const media = (payload: Uint8Array) => scan(payload, { maxDepth: 128, allowBin: true, binOnlyAtMediaKeys: true, maxContainers: Infinity });
        const bin = bytes(0xc4, 0x02, 1, 2);
        const at = (key: string) => bytes(0x81, 0xa0 + key.length, ...Buffer.from(key), bin);
        assert.equal(media(at('data')).containsBin, true);
        assert.equal(media(at('blob')).containsBin, true);
        assert.equal(media(bytes(0x82, 0xa1, 0x78, 0x90, 0xa4, ...Buffer.from('blob'), bin)).containsBin, true);
        const outside = [bin, bytes(0x91, bin), at('date'), at('blobs'), at('x'), bytes(0x81, 0xa4, ...Buffer.from('data'), 0x91, bin), bytes(0x82, 0xa4, ...Buffer.from('data'), 0x01, 0xa1, 0x78, bin)];
        for (const payload of outside) assert.throws(() => media(payload), payloadError('forbidden-type', /outside a media field/), Buffer.from(payload).toString('hex'));
        // An array of 8 million empty bins is refused at its first: a length that lies is never read.
        assert.throws(() => media(bytes(0x91, 0xc6, 0xff, 0xff, 0xff, 0xff)), payloadError('forbidden-type', /at byte 1 outside a media field/));
        assert.throws(() => media(bytes(0x81, bin, 0x01)), payloadError('forbidden-type', /outside a media field/));
      });

      it('checks a bin length against the bytes left even when bin is allowed', () => {
        assert.throws(() => guard(bytes(0xc6, 0xff, 0xff, 0xff, 0xff, 1, 2), true), payloadError('malformed-msgpack'));
      });
    });

    describe('guard: map keys', () => {
      it('refuses every non-string key type', () => {
        const keys = [bytes(0x01), bytes(0xff), bytes(0xc0), bytes(0xc3), bytes(0xcb, 0, 0, 0, 0, 0, 0, 0, 0), bytes(0x90), bytes(0x80), bytes(0xc4, 0x01, 0x61)];
        for (const key of keys) {
          assert.throws(() => guard(bytes(0x81, key, 0x01), true), payloadError('non-string-key'), Buffer.from(key).toString('hex'));
          assert.throws(() => guard(requestAround(bytes(0x81, key, 0x01)), true), payloadError('non-string-key'));
        }
        assert.doesNotThrow(() => guard(bytes(0x82, 0xa0, 0x01, 0xd9, 0x01, 0x61, 0x02)));
      });

      it('judges a key at its first byte: a type refused everywhere as that type, any other non-str as non-string-key, whatever follows', () => {
        // Cut short, NaN or claiming too much: still a key that is not a str, found at its first byte.
        for (const key of [bytes(0xcc), bytes(0xcd, 0x01), bytes(0xca, 0xff, 0x80, 0x00, 0x00), bytes(0xcb, 0x7f, 0xf8, 0, 0, 0, 0, 0, 0), bytes(0xdc, 0xff), bytes(0xdd, 0xff, 0xff, 0xff, 0xff)]) {
          assert.throws(() => guard(bytes(0x81, key, 0x01)), payloadError('non-string-key', /map key at byte 1/), Buffer.from(key).toString('hex'));
          // The payload's last bytes: the key is cut short, and there is no value.
          assert.throws(() => guard(bytes(0x82, 0xa1, 0x61, 0x01, key)), payloadError('non-string-key', /map key at byte 4/), Buffer.from(key).toString('hex'));
        }
        // ext, 0xc1 and a bin (never a data or blob member's value) are refused for their type, at the same byte.
        assert.throws(() => guard(bytes(0x81, 0xd4, 0x72, 0x00, 0x01)), payloadError('forbidden-type', /ext type 114/));
        assert.throws(() => guard(bytes(0x81, 0xc1, 0x01)), payloadError('forbidden-type', /0xc1 at byte 1/));
        assert.throws(() => guard(bytes(0x81, 0xc4, 0x01, 0x61, 0x01)), payloadError('forbidden-type', /only allowed once native bytes/));
        const mediaOnly: GuardOptions = { maxDepth: 128, allowBin: true, binOnlyAtMediaKeys: true, maxContainers: Infinity };
        assert.throws(() => scan(bytes(0x81, 0xc4, 0xff), mediaOnly), payloadError('forbidden-type', /outside a media field/));
      });

      it('refuses a __proto__ key at any depth, in any string form, and pollutes nothing', () => {
        const proto = [...Buffer.from('__proto__')];
        const forms = [bytes(0xa9, proto), bytes(0xd9, 9, proto), bytes(0xda, 0, 9, proto), bytes(0xdb, 0, 0, 0, 9, proto)];
        const polluting = bytes(0x81, 0xa8, [...Buffer.from('polluted')], 0xc3);
        for (const key of forms) {
          assert.throws(() => guard(bytes(0x81, key, polluting)), payloadError('forbidden-key', /__proto__/));
          assert.throws(() => new MsgpackMessageCodec().decodeMessage(requestAround(bytes(0x81, key, polluting))), payloadError('forbidden-key'));
        }
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
        assert.equal(Object.hasOwn(Object.prototype, 'polluted'), false);
        // As a value, or a longer key that starts the same way, it is ordinary data.
        assert.doesNotThrow(() => guard(bytes(0x81, 0xa1, 0x61, 0xa9, proto)));
        assert.doesNotThrow(() => guard(bytes(0x81, 0xaa, proto, 0x5f, 0x01)));
      });
    });

    describe('guard: depth and sizes', () => {
      const nestedArrays = (levels: number): Uint8Array => bytes(new Array(levels).fill(0x91), 0xc0);

      it('refuses nesting past maxDepth with too-deep, and accepts exactly maxDepth', () => {
        assert.doesNotThrow(() => scan(nestedArrays(10), { maxDepth: 10, allowBin: false, maxContainers: Infinity }));
        assert.throws(() => scan(nestedArrays(11), { maxDepth: 10, allowBin: false, maxContainers: Infinity }), payloadError('too-deep'));
        assert.throws(() => guard(nestedArrays(129)), payloadError('too-deep', /128/));
        const nestedMaps = bytes(new Array(200).fill([0x81, 0xa1, 0x6b]).flat(), 0xc0);
        assert.throws(() => guard(nestedMaps), payloadError('too-deep'));
      });

      it('refuses 10,000 levels of nesting with a clean error, not a stack overflow', () => {
        assert.throws(() => guard(nestedArrays(10_000)), payloadError('too-deep'));
        assert.throws(() => new MsgpackMessageCodec().decodeMessage(nestedArrays(10_000)), payloadError('too-deep'));
      });

      it('refuses 2,000 nested `dc ff ff` headers (6 KB) at once, without allocating for them', () => {
        const payload = bytes(new Array(2000).fill([0xdc, 0xff, 0xff]).flat());
        assert.equal(payload.length, 6000);
        const before = process.memoryUsage().rss;
        for (let i = 0; i < 100; i++) {
          assert.throws(() => new MsgpackMessageCodec({ maxDepth: 5000 }).decodeMessage(payload), payloadError('malformed-msgpack', /claims 65535 entries/));
        }
        const grewBy = process.memoryUsage().rss - before;
        assert.ok(grewBy < 50 * 1024 * 1024, `rss grew by ${grewBy} bytes`);
      });

      it('refuses headers claiming more entries or bytes than the payload holds', () => {
        const cases: Uint8Array[] = [
          bytes(0xdd, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0), // array32 of 2^32-1 in a 10-byte payload
          bytes(0xdf, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0), // map32
          bytes(0xde, 0x00, 0x03, 0xa1, 0x61, 0x01, 0xa1, 0x62, 0x02), // 3 pairs = 6 values, 6 bytes left but not enough pairs
          bytes(0xdb, 0xff, 0xff, 0xff, 0xff, 0x61), // str32
          bytes(0xda, 0x00, 0x10, 0x61), // str16
          bytes(0x9f, 0x01), // fixarray of 15 with one item
        ];
        for (const payload of cases) assert.throws(() => guard(payload), payloadError('malformed-msgpack'), Buffer.from(payload).toString('hex'));
      });

      it('refuses bytes after the value', () => {
        assert.throws(() => guard(bytes(0x01, 0x02)), payloadError('malformed-msgpack', /1 bytes after/));
        const message = new CanonicalEncoder().encode({ jsonrpc: '2.0', method: 'x' });
        assert.throws(() => guard(bytes(message, 0xc0)), payloadError('malformed-msgpack'));
        assert.throws(() => guard(bytes(message, message)), payloadError('malformed-msgpack'));
      });

      it('refuses a real message cut at every point with malformed-msgpack (and nothing else)', () => {
        const message = {
          jsonrpc: '2.0',
          id: 'abc',
          result: { content: [{ type: 'text', text: 'héllo 😀'.repeat(5) }], big: 2 ** 40, neg: -(2 ** 35), f: 0.25, list: Array.from({ length: 20 }, (_, i) => i * 300), flag: true, none: null },
        };
        const payload = new CanonicalEncoder().encode(message);
        const codec = new MsgpackMessageCodec();
        assert.equal(codec.decodeMessage(payload).jsonrpc, '2.0');
        assert.throws(() => codec.decodeMessage(payload.subarray(0, 0)), payloadError('empty-payload'));
        for (let cut = 1; cut < payload.length; cut++) {
          assert.throws(() => codec.decodeMessage(payload.subarray(0, cut)), payloadError('malformed-msgpack'), `cut at ${cut}`);
        }
      });
    });

    describe('guard: the decode budget (arrays and maps per payload byte)', () => {
      it('says what was over the container allowance, and does not count scalars (the edge itself: fixtures/ edge-containers)', () => {
        const payload = arrayOf([0x80], 9); // 10 containers: the array and 9 empty maps
        assert.throws(() => scan(payload, { maxDepth: 128, allowBin: false, maxContainers: 9 }), payloadError('over-budget', /more than 9 arrays, maps and bins in a 14-byte payload/));
        // Scalars do not count, however many.
        assert.doesNotThrow(() => scan(arrayOf([0xc0], 1000), { maxDepth: 128, allowBin: false, maxContainers: 1 }));
      });

      it('defaults to 65,536 containers plus one per 8 bytes, counted on the payload length', () => {
        assert.deepEqual(DEFAULT_DECODE_BUDGET, { base: 65_536, bytesPerContainer: 8, keyBase: 8_192, bytesPerShortKey: 128, wordBase: 262_144, bytesPerWord: 1 });
        assert.equal(containerAllowance(0), 65_536);
        assert.equal(containerAllowance(800_000), 165_536);
        // The word budget lifted: at 8 words an empty map it is met first (tested below); this is the container half.
        const decoder = new MsgpackDecoder({ decodePath, decodeBudget: { wordBase: Infinity } });
        // k empty maps: k + 1 containers in 5 + k bytes. 70,000 fit (allowance 74,286); 100,000 do not (78,036).
        assert.equal((decoder.decode(arrayOf([0x80], 70_000)).value as unknown[]).length, 70_000);
        assert.throws(() => decoder.decode(arrayOf([0x80], 100_000)), payloadError('over-budget', /more than 78036 /));
        // Empty arrays and one-entry maps count the same way.
        assert.throws(() => decoder.decode(arrayOf([0x90], 100_000)), payloadError('over-budget'));
        assert.throws(() => decoder.decode(arrayOf([0x81, 0xa1, 0x61, 0x80], 100_000)), payloadError('over-budget'));
      });

      /** An array32 of `count` one-entry maps {<5-char key>: nil}, each key different: 8 bytes a map. */
      const uniqueKeyMaps = (count: number, distinct = count): Uint8Array => {
        const payload = new Uint8Array(5 + 8 * count);
        payload[0] = 0xdd;
        new DataView(payload.buffer).setUint32(1, count);
        for (let i = 0; i < count; i++) {
          const at = 5 + 8 * i;
          payload.set([0x81, 0xa5, ...Buffer.from((i % distinct).toString(36).padStart(5, '0')), 0xc0], at);
        }
        return payload;
      };

      it('counts distinct short keys exactly: fresh keys past 8,192 + 1 per 128 bytes are refused, at any size that can hold more', () => {
        const decoder = new MsgpackDecoder({ decodePath, decodeBudget: { bytesPerContainer: 1 } }); // containers out of the way
        // 160,000 maps with fresh keys in 1.28 MB: allowed 8,192 + 10,000 = 18,192 keys.
        assert.throws(() => decoder.decode(uniqueKeyMaps(160_000)), payloadError('over-budget', /more than 18192 distinct short map keys/));
        // The same size with 1,000 keys repeated is fine: keys seen before cost nothing.
        assert.equal((decoder.decode(uniqueKeyMaps(160_000, 1000)).value as unknown[]).length, 160_000);
        // Under 1 MiB too (it used to be skipped there): 100,000 fresh keys in 800 KB, allowed 14,442.
        assert.throws(() => decoder.decode(uniqueKeyMaps(100_000)), payloadError('over-budget', /more than 14442 distinct short map keys/));
        assert.equal((decoder.decode(uniqueKeyMaps(8_000)).value as unknown[]).length, 8_000);
        // Skipped only where it cannot be broken: each key takes two bytes at least.
        assert.equal(shortKeyAllowance(16 * 1024), Infinity);
        assert.equal(shortKeyAllowance(32 * 1024), 8_192 + 256);
      });

      it('tells keys apart by their bytes: keys whose 32-bit hashes collide are still counted one by one', () => {
        // Pairs of keys with the same FNV-1a hash (the table's, and the old count's, which saw each pair as one).
        const colliding = collidingKeyPairs(20);
        const payload = mapsWithKeys(colliding);
        const options = { maxDepth: 128, allowBin: false, maxContainers: Infinity };
        assert.doesNotThrow(() => scan(payload, { ...options, maxShortKeys: colliding.length }));
        assert.throws(() => scan(payload, { ...options, maxShortKeys: colliding.length - 1 }), payloadError('over-budget', /distinct short map keys/));
      });

      it('counts map shapes: the same 15 keys in many orders are refused past the allowance, one order repeated is not', () => {
        const keys = Array.from({ length: 15 }, (_, i) => String.fromCharCode(97 + i));
        const orders = Array.from({ length: 3000 }, (_, i) => rotateShuffle(keys, i));
        const options = { maxDepth: 128, allowBin: false, maxContainers: Infinity };
        const shuffled = encodeMaps(orders);
        assert.throws(() => scan(shuffled, { ...options, maxShortKeys: 5000 }), payloadError('over-budget', /more than 5000 distinct map shapes \(key orders\)/));
        const same = encodeMaps(orders.map(() => keys));
        assert.doesNotThrow(() => scan(same, { ...options, maxShortKeys: 15 }));
        assert.throws(() => scan(same, { ...options, maxShortKeys: 14 }), payloadError('over-budget'));
        // Through the decoder, with the default budget: 1 MiB of such maps, 56x its size before.
        const big = encodeMaps(Array.from({ length: 22_000 }, (_, i) => rotateShuffle(keys, i)));
        assert.throws(() => new MsgpackDecoder({ decodePath }).decode(big), payloadError('over-budget', /distinct map shapes/));
      });

      it('decodeBudget changes the allowance, through the codec too', () => {
        const payload = arrayOf([0x80], 100_000);
        // (1 byte and 8 words an empty map: the word budget is lifted too.)
        assert.doesNotThrow(() => new MsgpackDecoder({ decodePath, decodeBudget: { bytesPerContainer: 1, wordBase: Infinity } }).decode(payload));
        assert.throws(() => new MsgpackMessageCodec({ decodeBudget: { base: 10 } }).decodeValue(arrayOf([0x80], 100)), payloadError('over-budget', /more than 23 /));
      });

      it('keeps real messages inside the budget: 2,000 tool definitions and 35,000 coordinate pairs', () => {
        const tools = Array.from({ length: 2000 }, (_, i) => ({
          name: `tool_${i}`,
          inputSchema: { type: 'object', properties: { path: { type: 'string' }, flags: { type: 'array', items: { type: 'string' } } }, required: ['path'] },
          annotations: { readOnlyHint: true },
        }));
        const encoder = new CanonicalEncoder();
        const codec = new MsgpackMessageCodec();
        const list = codec.decodeMessage(encoder.encode({ jsonrpc: '2.0', id: 1, result: { tools } })) as unknown as { result: { tools: unknown[] } };
        assert.equal(list.result.tools.length, 2000);
        // The densest plausible shape: [x, y] pairs of small integers, one container per 3 bytes and 10 words
        // of built values (SPEC.md 4.1.9): about 37,400 fit in the word budget's base.
        const points = Array.from({ length: 35_000 }, (_, i) => [i % 100, i % 7]);
        const result = codec.decodeMessage(encoder.encode({ jsonrpc: '2.0', id: 2, result: { points } })) as unknown as { result: { points: unknown[] } };
        assert.equal(result.result.points.length, 35_000);
      });

      it('refuses the budget breach before msgpackr builds anything: a refused 16 MiB frame of empty maps stays cheap', () => {
        const payload = arrayOf([0x80], 16 * 1024 * 1024);
        const decoder = new MsgpackDecoder({ decodePath });
        const before = process.memoryUsage();
        assert.throws(() => decoder.decode(payload), payloadError('over-budget'));
        const after = process.memoryUsage();
        // Without the budget this decode builds 16 million objects (over 1 GB); refused, it builds none. (On Bun
        // heapUsed also moves with earlier tests' garbage, by up to about 80 MB: hence the margin.)
        assert.ok(after.heapUsed - before.heapUsed < 128 * 1024 * 1024, `heap grew by ${after.heapUsed - before.heapUsed} bytes`);
      });
    });

    describe('guard: the decode budget (words of built values per payload byte)', () => {
      const options = (maxWords: number): GuardOptions => ({ maxDepth: 128, allowBin: false, maxContainers: Infinity, maxWords });

      it("finds a word breach at the value that makes it: a slot before its first byte, a str's 6 once its bytes are there, a bin's 47 once its bytes are there", () => {
        // The prices themselves, at each edge and one word past: fixtures/ edge-words-* (run below on this path).
        // The array (1 + 7) and 9 nils: 17 words; the 9th nil, at byte 13, is the 17th.
        assert.throws(() => scan(arrayOf([0xc0], 9), options(16)), payloadError('over-budget', /values that cost more than 16 words to build in a 14-byte payload \(the decode budget\) at byte 13/));
        // {"ab": "cd"}: the map 1 + 7, its value 1 + 6 (at byte 4); the key nothing.
        assert.throws(() => scan(new Uint8Array([0x81, 0xa2, 0x61, 0x62, 0xa2, 0x63, 0x64]), options(14)), payloadError('over-budget', /at byte 4/));
        // A bin: {"data": bin 0} is the map 1 + 7 and the bin 1 + 47 (at byte 6).
        const dataBin = new Uint8Array([0x81, 0xa4, ...Buffer.from('data'), 0xc4, 0x00]);
        assert.throws(() => scan(dataBin, { ...options(8 + 47), allowBin: true }), payloadError('over-budget', /at byte 6/));
      });

      it('defaults to 262,144 words plus one per byte: nils and small integers pass at any size, short strings and the container edge do not', () => {
        assert.equal(wordAllowance(0), 262_144);
        assert.equal(wordAllowance(1_000_000), 1_262_144);
        const decoder = new MsgpackDecoder({ decodePath });
        // 4 MiB of nils or of 0/1 values: one word a byte, inside at any size.
        assert.equal((decoder.decode(arrayOf([0xc0], 4 * 1024 * 1024)).value as unknown[]).length, 4 * 1024 * 1024);
        assert.equal((decoder.decode(arrayOf([0x01], 4 * 1024 * 1024)).value as unknown[]).length, 4 * 1024 * 1024);
        // 2-letter strings: 7 words per 3 bytes; past about 65,500 of them (197 KB) the base no longer makes up for it.
        assert.equal((decoder.decode(arrayOf([0xa2, 0x61, 0x62], 65_000)).value as unknown[]).length, 65_000);
        assert.throws(() => decoder.decode(arrayOf([0xa2, 0x61, 0x62], 70_000)), payloadError('over-budget', /values that cost more than 472149 words/));
        // 3-letter strings: 7 words per 4 bytes, past about 87,400 (350 KB).
        assert.equal((decoder.decode(arrayOf([0xa3, 0x61, 0x62, 0x63], 87_000)).value as unknown[]).length, 87_000);
        assert.throws(() => decoder.decode(arrayOf([0xa3, 0x61, 0x62, 0x63], 88_000)), payloadError('over-budget'));
        // One empty map per 8 bytes with 2-letter strings and nil between them: within the container budget, not this one.
        const mixed = arrayOf([0x80, 0xa2, 0x61, 0x62, 0xa2, 0x61, 0x62, 0xc0], 131_072);
        new DataView(mixed.buffer).setUint32(1, 4 * 131_072); // four items a unit
        assert.throws(() => decoder.decode(mixed), payloadError('over-budget', /words to build/));
      });

      it('refuses a breach before anything is built, on both paths: a refused 16 MiB payload of 2-letter strings stays cheap', () => {
        const payload = arrayOf([0xa2, 0x61, 0x62], Math.floor((16 * 1024 * 1024) / 3));
        const decoder = new MsgpackDecoder({ decodePath });
        const before = process.memoryUsage();
        assert.throws(() => decoder.decode(payload), payloadError('over-budget', /words to build/));
        const after = process.memoryUsage();
        // Built, these 5.6 million strings would take over 150 MB of heap.
        assert.ok(after.heapUsed - before.heapUsed < 64 * 1024 * 1024, `heap grew by ${after.heapUsed - before.heapUsed} bytes`);
      });

      it('decodeBudget changes the word allowance, through the codec too', () => {
        const payload = arrayOf([0xa2, 0x61, 0x62], 600_000);
        assert.doesNotThrow(() => new MsgpackDecoder({ decodePath, decodeBudget: { wordBase: Infinity } }).decode(payload));
        assert.throws(() => new MsgpackMessageCodec({ decodeBudget: { wordBase: 0, bytesPerWord: 1 } }).decodeValue(arrayOf([0xa2, 0x61, 0x62], 100)), payloadError('over-budget', /more than 305 words/));
      });
    });

    describe('guard: the decode budget at its edges (fixtures/accept/edge-*, fixtures/refuse/edge-*)', () => {
      const guardOptions = (fixture: EdgeFixture): GuardOptions => {
        const budget = decodeBudgetOf(fixture.budget);
        const n = fixture.payload.length;
        return {
          maxDepth: 128,
          allowBin: fixture.allowBin,
          binOnlyAtMediaKeys: true,
          maxContainers: containerAllowance(n, budget),
          maxShortKeys: shortKeyAllowance(n, budget),
          maxWords: wordAllowance(n, budget),
        };
      };
      const decoder = (fixture: EdgeFixture) => new MsgpackDecoder({ decodePath, allowBin: fixture.allowBin, binOnlyAtMediaKeys: true, decodeBudget: decodeBudgetOf(fixture.budget) });

      it('accepts every payload exactly at an allowance, and decodes it to its message', () => {
        assert.ok(edgeAcceptances.length >= 8);
        for (const fixture of edgeAcceptances) {
          assert.doesNotThrow(() => scan(fixture.payload, guardOptions(fixture)), fixture.name);
          assert.deepEqual(comparable(decoder(fixture).decode(fixture.payload).value), comparable(fixture.message), fixture.name);
        }
      });

      it('refuses every payload one unit past it, with over-budget', () => {
        assert.equal(edgeRefusals.length, edgeAcceptances.length);
        for (const fixture of edgeRefusals) {
          assert.throws(() => scan(fixture.payload, guardOptions(fixture)), payloadError('over-budget'), fixture.name);
          assert.throws(() => decoder(fixture).decode(fixture.payload), payloadError('over-budget'), fixture.name);
        }
      });
    });

    describe('guard: floats', () => {
      it('refuses NaN and the infinities, as float 32 and float 64, and accepts every finite float', () => {
        const f64 = (x: number) => {
          const b = new Uint8Array(9);
          b[0] = 0xcb;
          new DataView(b.buffer).setFloat64(1, x);
          return b;
        };
        const f32 = (x: number) => {
          const b = new Uint8Array(5);
          b[0] = 0xca;
          new DataView(b.buffer).setFloat32(1, x);
          return b;
        };
        for (const x of [NaN, Infinity, -Infinity]) {
          assert.throws(() => guard(f64(x)), payloadError('non-finite-number', /float 64/), `f64 ${x}`);
          assert.throws(() => guard(f32(x)), payloadError('non-finite-number', /float 32/), `f32 ${x}`);
        }
        // A NaN with a payload, and a negative quiet NaN, are still NaN.
        assert.throws(() => guard(bytes(0xcb, 0xff, 0xf8, 0, 0, 0, 0, 0, 1)), payloadError('non-finite-number'));
        assert.throws(() => guard(bytes(0xca, 0x7f, 0x80, 0, 1)), payloadError('non-finite-number'));
        for (const x of [0, -0, 1.5, -2.25, Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE]) assert.doesNotThrow(() => guard(f64(x)), `f64 ${x}`);
        for (const x of [0, -0, 1.5, -2.25, 3.4028234663852886e38, -3.4028234663852886e38, 1e-45]) assert.doesNotThrow(() => guard(f32(x)), `f32 ${x}`);
      });
    });
  });
}

/** An array of one-entry maps, {key: nil} each, one per key. */
function mapsWithKeys(keys: Buffer[]): Uint8Array {
  const parts: Buffer[] = [Buffer.from([0xdd, 0, 0, 0, 0])];
  parts[0]!.writeUInt32BE(keys.length, 1);
  for (const key of keys) parts.push(Buffer.from([0x81, 0xa0 + key.length]), key, Buffer.from([0xc0]));
  return Buffer.concat(parts);
}

/** An array of maps holding `orders[i]`'s keys in that order, each value nil. */
function encodeMaps(orders: string[][]): Uint8Array {
  const parts: Buffer[] = [Buffer.from([0xdd, 0, 0, 0, 0])];
  parts[0]!.writeUInt32BE(orders.length, 1);
  for (const order of orders) {
    parts.push(Buffer.from([0x80 + order.length]));
    for (const key of order) parts.push(Buffer.from([0xa0 + key.length]), Buffer.from(key), Buffer.from([0xc0]));
  }
  return Buffer.concat(parts);
}

/** A different order of `keys` for each i (a deterministic shuffle). */
function rotateShuffle(keys: string[], i: number): string[] {
  const out = keys.slice();
  let seed = i * 2654435761 + 1;
  for (let j = out.length - 1; j > 0; j--) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const k = seed % (j + 1);
    [out[j], out[k]] = [out[k]!, out[j]!];
  }
  return out;
}

/** 2 * pairs distinct 5-byte keys whose FNV-1a hashes (seeded with the length, as KeyBudget's) collide in pairs, found by a birthday search. */
function collidingKeyPairs(pairs: number): Buffer[] {
  const found = [
    '00ya8',
    '0xki6',
    '00ya9',
    '0xki7',
    '00ya6',
    '0xki8',
    '00ya7',
    '0xki9',
    '00yao',
    '0xkia',
    '00yal',
    '0xkib',
    '00yam',
    '0xkic',
    '00yaj',
    '0xkid',
    '00yak',
    '0xkie',
    '00yah',
    '0xkif',
    '00yai',
    '0xkig',
    '00yaf',
    '0xkih',
    '00yag',
    '0xkii',
    '00yad',
    '0xkij',
    '00yae',
    '0xkik',
    '00yab',
    '0xkil',
    '00yac',
    '0xkim',
    '00yaa',
    '0xkio',
    '00yaz',
    '0xkit',
    '00yax',
    '0xkiv',
  ];
  const fnv = (key: Buffer) => {
    let hash = 0x811c9dc5 ^ key.length;
    for (const byte of key) hash = Math.imul(hash ^ byte, 0x01000193);
    return hash >>> 0;
  };
  const keys = found.slice(0, 2 * pairs).map((key) => Buffer.from(key));
  for (let i = 0; i < keys.length; i += 2) assert.equal(fnv(keys[i]!), fnv(keys[i + 1]!), 'the pairs collide');
  return keys;
}
