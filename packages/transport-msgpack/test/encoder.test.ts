// CanonicalEncoder: the canonical rules of SPEC.md, the JSON data model's edge cases, and its arena.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Packr } from 'msgpackr';
import { Decoder } from '@msgpack/msgpack';
import { NativeBytesPool, PayloadError } from 'mcp-msgpack-transport';
import { BIN_BY_REFERENCE, CanonicalEncoder, MsgpackDecoder } from 'mcp-msgpack-transport/wire';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const encodeHex = (value: unknown): string => hex(new CanonicalEncoder().encode(value));
/** The first `n` bytes of the encoding, as hex: the header of a large value. */
const headHex = (value: unknown, n: number): string => hex(new CanonicalEncoder().encode(value).subarray(0, n));
const isUnencodable = (e: unknown): boolean => e instanceof PayloadError && e.code === 'unencodable';
const decodeWithBin = (bytes: Uint8Array): unknown => new MsgpackDecoder({ allowBin: true, maxDepth: 10 }).decode(bytes).value;

describe('CanonicalEncoder: smallest headers', () => {
  it('integers at every width boundary, both signs', () => {
    const cases: [number, string][] = [
      [0, '00'],
      [127, '7f'],
      [128, 'cc80'],
      [255, 'ccff'],
      [256, 'cd0100'],
      [65535, 'cdffff'],
      [65536, 'ce00010000'],
      [2 ** 32 - 1, 'ceffffffff'],
      [2 ** 32, 'cf0000000100000000'],
      [2 ** 53 - 1, 'cf001fffffffffffff'],
      [2 ** 63, 'cf8000000000000000'],
      [-1, 'ff'],
      [-32, 'e0'],
      [-33, 'd0df'],
      [-128, 'd080'],
      [-129, 'd1ff7f'],
      [-32768, 'd18000'],
      [-32769, 'd2ffff7fff'],
      [-(2 ** 31), 'd280000000'],
      [-(2 ** 31) - 1, 'd3ffffffff7fffffff'],
      [-(2 ** 53 - 1), 'd3ffe0000000000001'],
      [-(2 ** 63), 'd38000000000000000'],
      [-0, '00'],
    ];
    for (const [n, expected] of cases) assert.equal(encodeHex(n), expected, `${n}`);
  });

  it('integral numbers beyond 64 bits, and every non-integral number, are float64', () => {
    assert.equal(encodeHex(2 ** 64), 'cb43f0000000000000');
    assert.equal(encodeHex(-(2 ** 63) - 4096), 'cbc3e0000000000002');
    assert.equal(encodeHex(0.5), 'cb3fe0000000000000');
    assert.equal(encodeHex(-1.25), 'cbbff4000000000000');
    assert.equal(encodeHex(5e-324), 'cb0000000000000001');
    assert.equal(encodeHex(1e300), 'cb7e37e43c8800759c');
  });

  it('strings by UTF-8 byte length, not character count', () => {
    const cases: [string, string][] = [
      ['', 'a0'],
      ['a'.repeat(31), 'bf'],
      ['a'.repeat(32), 'd920'],
      ['é'.repeat(16), 'd920'], // 16 characters, 32 bytes
      ['é'.repeat(15) + 'a', 'bf'],
      ['a'.repeat(20) + '€'.repeat(5), 'd923'], // ASCII first, then 15 bytes for 5 units: the header grows
      ['a'.repeat(30) + '😀', 'd922'], // 32 units, a pair at the end: written long-hand, str8
      ['a'.repeat(25) + 'é' + 'b', 'bc'],
      ['a'.repeat(255), 'd9ff'],
      ['€'.repeat(85), 'd9ff'],
      ['a'.repeat(256), 'da0100'],
      ['😀'.repeat(64), 'da0100'],
      ['a'.repeat(65535), 'daffff'],
      ['a'.repeat(65536), 'db00010000'],
      ['😀'.repeat(16384), 'db00010000'],
      ['€'.repeat(21846), 'db00010002'], // over 65535 bytes: str32
    ];
    for (const [s, header] of cases) {
      const bytes = new CanonicalEncoder().encode(s);
      assert.equal(hex(bytes.subarray(0, header.length / 2)), header, `${s.length} chars`);
      assert.deepEqual(Buffer.from(bytes.subarray(header.length / 2)), Buffer.from(s, 'utf8'));
    }
  });

  it('bin, arrays and maps at their boundaries', () => {
    const bin = (n: number) => new Uint8Array(n).fill(7);
    assert.equal(encodeHex(bin(0)), 'c400');
    assert.equal(headHex(bin(255), 2), 'c4ff');
    assert.equal(headHex(bin(256), 3), 'c50100');
    assert.equal(headHex(bin(65535), 3), 'c5ffff');
    assert.equal(headHex(bin(65536), 5), 'c600010000');
    const array = (n: number) => new Array<number>(n).fill(1);
    assert.equal(headHex(array(15), 1), '9f');
    assert.equal(headHex(array(16), 3), 'dc0010');
    assert.equal(headHex(array(65535), 3), 'dcffff');
    assert.equal(headHex(array(65536), 5), 'dd00010000');
    const map = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    assert.equal(headHex(map(0), 1), '80');
    assert.equal(headHex(map(15), 1), '8f');
    assert.equal(headHex(map(16), 3), 'de0010');
    assert.equal(headHex(map(65535), 3), 'deffff');
    assert.equal(headHex(map(65536), 5), 'df00010000');
  });

  it('keeps map keys in insertion order', () => {
    assert.equal(encodeHex({ b: 1, a: 2 }), '82a16201a16102');
  });

  it('encodeFrame puts the 4-byte big-endian payload length in front of encode()', () => {
    const message = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const payload = hex(new CanonicalEncoder().encode(message));
    const frame = new CanonicalEncoder().encodeFrame(message);
    assert.equal(hex(frame), (payload.length / 2).toString(16).padStart(8, '0') + payload);
  });
});

describe('CanonicalEncoder: the JSON data model', () => {
  it('drops undefined, functions and symbols from objects, shrinking the map header across 16 keys', () => {
    const object: Record<string, unknown> = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`k${i}`, i]));
    object.gone1 = undefined;
    object.gone2 = () => 1;
    object.gone3 = Symbol('x');
    const bytes = new CanonicalEncoder().encode(object);
    assert.equal(bytes[0], 0x8f, 'reserved map16 for 18 keys, 15 written: fixmap');
    const expected = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`k${i}`, i]));
    assert.deepEqual(decodeWithBin(bytes), expected);
    assert.equal(hex(bytes), encodeHex(expected));
  });

  it('shrinks a map32 header to map16 and keeps the values that follow', () => {
    const object: Record<string, unknown> = { first: undefined };
    for (let i = 0; i < 65535; i++) object[`k${i}`] = i;
    object.last = undefined;
    const bytes = new CanonicalEncoder().encode(object);
    assert.equal(hex(bytes.subarray(0, 3)), 'deffff');
    const { first: _f, last: _l, ...expected } = object;
    assert.equal(hex(bytes), encodeHex(expected));
  });

  it('shrinks the header of a nested map without disturbing its neighbours', () => {
    const inner = { a: 1, b: undefined, c: 'x' };
    const value = { before: [1, 2], inner, after: { d: true } };
    assert.deepEqual(decodeWithBin(new CanonicalEncoder().encode(value)), { before: [1, 2], inner: { a: 1, c: 'x' }, after: { d: true } });
  });

  it('writes null for undefined, functions and symbols in arrays and at the top level', () => {
    assert.equal(encodeHex([undefined, () => 0, Symbol('s'), 1]), '94c0c0c001');
    // A hole in a sparse array is undefined too.
    // biome-ignore lint/suspicious/noSparseArray: the hole is what is tested
    assert.equal(encodeHex([1, , 3]), '9301c003');
    assert.equal(encodeHex(undefined), 'c0');
  });

  it('writes NaN and ±Infinity as nil, as JSON writes null', () => {
    assert.equal(encodeHex([NaN, Infinity, -Infinity]), '93c0c0c0');
  });

  it('encodes bigint in 64 bits with the smallest header, and refuses larger ones', () => {
    assert.equal(encodeHex(5n), '05');
    assert.equal(encodeHex(-33n), 'd0df');
    assert.equal(encodeHex(2n ** 32n), 'cf0000000100000000');
    assert.equal(encodeHex(2n ** 64n - 1n), 'cfffffffffffffffff');
    assert.equal(encodeHex(-(2n ** 31n) - 1n), 'd3ffffffff7fffffff');
    assert.equal(encodeHex(-(2n ** 63n)), 'd38000000000000000');
    assert.throws(() => new CanonicalEncoder().encode(2n ** 64n), isUnencodable);
    assert.throws(() => new CanonicalEncoder().encode(-(2n ** 63n) - 1n), isUnencodable);
  });

  it('writes Uint8Array (and Buffer) as bin, and refuses every other typed array or DataView', () => {
    assert.equal(encodeHex(new Uint8Array([1, 2, 3])), 'c403010203');
    assert.equal(encodeHex(Buffer.from([9])), 'c40109');
    const offsetView = new Uint8Array([0, 1, 2, 3, 4]).subarray(1, 3);
    assert.equal(encodeHex(offsetView), 'c4020102');
    const others = [new Int8Array(1), new Uint16Array(1), new Float32Array(1), new Float64Array(1), new BigInt64Array(1), new Uint8ClampedArray(1), new DataView(new ArrayBuffer(2))];
    for (const value of others) assert.throws(() => new CanonicalEncoder().encode({ data: value }), isUnencodable, value.constructor.name);
  });

  it('honours toJSON, as JSON.stringify does', () => {
    const date = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
    assert.deepEqual(decodeWithBin(new CanonicalEncoder().encode({ at: date })), { at: '2026-01-02T03:04:05.000Z' });
    const custom = { toJSON: () => ({ kind: 'custom', n: 1 }) };
    assert.deepEqual(decodeWithBin(new CanonicalEncoder().encode([custom])), [{ kind: 'custom', n: 1 }]);
  });

  it('writes lone surrogates as U+FFFD in short and long strings', () => {
    const fffd = 'efbfbd';
    assert.equal(encodeHex('\ud800'), `a3${fffd}`);
    assert.equal(encodeHex('a\udc00b'), `a561${fffd}62`);
    assert.equal(encodeHex('\ud83d\ud83d'), `a6${fffd}${fffd}`); // two high surrogates
    assert.equal(encodeHex('\ud83d\ude00'), 'a4f09f9880'); // a real pair stays one character
    const long = 'x'.repeat(5000) + '\udfff' + 'y'.repeat(40);
    const bytes = new CanonicalEncoder().encode(long);
    assert.equal(hex(bytes.subarray(0, 3)), (0xda).toString(16) + (5043).toString(16).padStart(4, '0'));
    assert.equal(Buffer.from(bytes.subarray(3)).toString('utf8'), 'x'.repeat(5000) + '\ufffd' + 'y'.repeat(40));
  });

  it('refuses a circular value with a PayloadError, not a stack overflow, and stays usable', () => {
    const encoder = new CanonicalEncoder();
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = loop;
    assert.throws(() => encoder.encodeFrame({ jsonrpc: '2.0', id: 1, result: loop }), isUnencodable);
    const array: unknown[] = [];
    array.push(array);
    assert.throws(() => encoder.encode(array), isUnencodable);
    assert.equal(hex(encoder.encode({ ok: true })), '81a26f6bc3');
  });
});

describe('CanonicalEncoder: arena', () => {
  it('never overwrites a frame it returned earlier', () => {
    const encoder = new CanonicalEncoder();
    const kept: { frame: Uint8Array; copy: Buffer }[] = [];
    for (let i = 0; i < 5000; i++) {
      // Mixed sizes, so some messages outgrow the arena and force a fresh one.
      const text = i % 500 === 0 ? 'z'.repeat(100_000) : `message ${i}`;
      const frame = encoder.encodeFrame({ jsonrpc: '2.0', id: i, result: { text, n: i * 1.5 } });
      kept.push({ frame, copy: Buffer.from(frame) });
    }
    for (let i = 0; i < kept.length; i++) assert.ok(Buffer.from(kept[i]!.frame).equals(kept[i]!.copy), `frame ${i} was overwritten`);
  });

  it('does not keep a large buffer after a large message', () => {
    const encoder = new CanonicalEncoder();
    const big = encoder.encodeFrame({ jsonrpc: '2.0', id: 1, result: { data: 'b'.repeat(5 * 1024 * 1024) } });
    assert.ok(big.length > 5 * 1024 * 1024);
    const small = encoder.encodeFrame({ jsonrpc: '2.0', id: 2, result: {} });
    assert.ok(small.buffer.byteLength <= 256 * 1024, `small frame sits in a ${small.buffer.byteLength}-byte buffer`);
  });

  it('does not keep a large buffer after a large message that failed to encode', () => {
    const encoder = new CanonicalEncoder();
    assert.throws(() => encoder.encodeFrame({ jsonrpc: '2.0', id: 1, result: { data: 'b'.repeat(5 * 1024 * 1024), bad: new Float32Array(1) } }), isUnencodable);
    const small = encoder.encodeFrame({ jsonrpc: '2.0', id: 2, result: {} });
    assert.ok(small.buffer.byteLength <= 256 * 1024, `small frame sits in a ${small.buffer.byteLength}-byte buffer`);
  });
});

describe("CanonicalEncoder: reusing a large message's buffer once it is written", () => {
  const large = (id: number) => ({ jsonrpc: '2.0', id, result: { text: 'b'.repeat(600_000), rows: [{ id, ok: true }] } });
  /** What a transport's writer does once a piece is written (lent bytes go back to their owner). */
  const written = (pieces: Uint8Array[]) => {
    for (const piece of pieces) new NativeBytesPool().release(piece);
  };

  it('reuses the buffer only after it was given back, and never changes a frame still unwritten', () => {
    const encoder = new CanonicalEncoder();
    const first = encoder.encodeFramePieces(large(1));
    const second = encoder.encodeFramePieces(large(2));
    const secondCopy = Buffer.concat(second);
    assert.notEqual(second[0]!.buffer, first[0]!.buffer);
    const third = encoder.encodeFramePieces(large(3)); // nothing given back yet: a buffer of its own
    assert.notEqual(third[0]!.buffer, second[0]!.buffer);
    assert.ok(Buffer.concat(second).equals(secondCopy), 'an unwritten frame was overwritten');
    written(second);
    const fourth = encoder.encodeFramePieces(large(4));
    assert.equal(fourth[0]!.buffer, second[0]!.buffer, 'the written buffer was reused');
    assert.deepEqual(new MsgpackDecoder().decode(Buffer.concat(fourth).subarray(4)).value, large(4));
  });

  it('drops the spare buffer when a small message comes, and never reuses one for a small message', () => {
    const encoder = new CanonicalEncoder();
    encoder.encodeFramePieces(large(1));
    const second = encoder.encodeFramePieces(large(2));
    written(second);
    const small = encoder.encodeFramePieces({ jsonrpc: '2.0', id: 3, result: {} });
    assert.notEqual(small[0]!.buffer, second[0]!.buffer);
    const next = encoder.encodeFramePieces(large(4));
    assert.notEqual(next[0]!.buffer, second[0]!.buffer);
  });

  it('lends the buffer through its last piece when large bins are cut out', () => {
    const encoder = new CanonicalEncoder();
    const bin = new Uint8Array(BIN_BY_REFERENCE).fill(7);
    const message = (id: number) => ({ jsonrpc: '2.0', id, result: { text: 'c'.repeat(600_000), data: bin, after: 'tail' } });
    encoder.encodeFramePieces(message(1));
    const second = encoder.encodeFramePieces(message(2));
    assert.equal(second.length, 3);
    assert.equal(second[1], bin);
    written(second);
    const third = encoder.encodeFramePieces(message(3));
    assert.equal(third[0]!.buffer, second[0]!.buffer);
    const decoded = decodeWithBin(Buffer.concat(third).subarray(4)) as { id: number; result: { text: string; data: Uint8Array; after: string } };
    assert.equal(decoded.id, 3);
    assert.equal(decoded.result.text, 'c'.repeat(600_000));
    assert.ok(Buffer.from(decoded.result.data).equals(Buffer.from(bin)));
    assert.equal(decoded.result.after, 'tail');
  });
});

describe('CanonicalEncoder: an arena comes back once every message in it is written', () => {
  const medium = (id: number) => ({ jsonrpc: '2.0', id, result: { text: 'm'.repeat(50_000), id } });
  const written = (pieces: Uint8Array[]) => {
    for (const piece of pieces) new NativeBytesPool().release(piece);
  };

  it('is reused only when all its messages were given back, and never changes one still unwritten', () => {
    const encoder = new CanonicalEncoder();
    let id = 0;
    const next = () => encoder.encodeFramePieces(medium(id++));
    /** Encodes until a message lands in another arena than `arena`; returns that message. */
    const pastArena = (arena: ArrayBufferLike) => {
      for (;;) {
        const frame = next();
        if (frame[0]!.buffer !== arena) return frame;
      }
    };
    next(); // sizes the next arena for messages of this size
    const first = next();
    const arenaA = first[0]!.buffer;
    const inA = [first];
    let frame = next();
    while (frame[0]!.buffer === arenaA) {
      inA.push(frame);
      frame = next();
    }
    assert.ok(inA.length >= 2, `arena A held ${inA.length} message(s)`);
    const copies = inA.map((pieces) => Buffer.concat(pieces));
    for (const pieces of inA.slice(1)) written(pieces);
    // One message of A is still unwritten: the next arena must be a new one.
    const inC = pastArena(frame[0]!.buffer);
    assert.notEqual(inC[0]!.buffer, arenaA, 'an arena holding an unwritten message was reused');
    for (const [i, pieces] of inA.entries()) assert.ok(Buffer.concat(pieces).equals(copies[i]!), `message ${i} of arena A changed`);
    written(inA[0]!);
    const inD = pastArena(inC[0]!.buffer);
    assert.equal(inD[0]!.buffer, arenaA, 'the arena whose messages were all written was not reused');
    assert.deepEqual(new MsgpackDecoder().decode(Buffer.concat(inD).subarray(4)).value, medium(id - 1));
  });
});

describe('CanonicalEncoder vs msgpackr', () => {
  it('is byte-identical to msgpackr (standard MessagePack) where msgpackr is canonical', () => {
    const packr = new Packr({ useRecords: false, variableMapSize: true });
    const messages: unknown[] = [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi 😀', n: -33, f: 0.5 } } },
      { jsonrpc: '2.0', id: 'x', result: { content: [{ type: 'text', text: 'é'.repeat(16) }], isError: false, nothing: null } },
      { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'bad', data: [1e300, -1.25, 5e-324, 4294967295, -2147483648] } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 3, progress: 65536, total: 70000.5 } },
      { list: Array.from({ length: 16 }, (_, i) => i * 17), map: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, `v${i}`])) },
      { strings: ['a'.repeat(31), 'a'.repeat(32), '€'.repeat(85), '😀'.repeat(64), 'a'.repeat(65535), 'a'.repeat(65536), ''] },
      { ints: [0, 127, 128, 255, 256, 65535, 65536, -1, -32, -33, -128, -129, -32768, -32769] },
      { bin: new Uint8Array([1, 2, 3]), empty: {}, arr: [] },
    ];
    const encoder = new CanonicalEncoder();
    for (const message of messages) assert.equal(hex(encoder.encode(message)), hex(packr.pack(message)), JSON.stringify(message).slice(0, 80));
  });
});

describe('CanonicalEncoder: pieces (large bins by reference)', () => {
  const joined = (pieces: Uint8Array[]): Buffer => Buffer.concat(pieces);
  const bytesOf = (size: number, seed: number): Uint8Array => Uint8Array.from({ length: size }, (_, i) => (i * 31 + seed) & 0xff);
  const big = bytesOf(BIN_BY_REFERENCE, 1);
  const bigger = bytesOf(200_000, 2);
  const small = bytesOf(BIN_BY_REFERENCE - 1, 3);
  const wide = (inner: unknown): Record<string, unknown> => ({ ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i])), inner });
  const cases: [string, unknown][] = [
    ['no bin', { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }] } }],
    ['a bin at the threshold', { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'image', data: big, mimeType: 'image/png' }] } }],
    ['a bin just under it (copied)', { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'image', data: small, mimeType: 'image/png' }] } }],
    ['two bins, one last', { jsonrpc: '2.0', id: 4, result: { a: big, b: [1, 2, bigger] } }],
    ['a bin inside an object of 16+ members', { jsonrpc: '2.0', id: 5, result: wide({ data: bigger, after: 'tail' }) }],
    ['bins in nested objects of 16+ members', wide(wide([big, { x: bigger }, 'end']))],
  ];

  for (const [name, value] of cases) {
    it(`gives the same bytes as encodeFrame / encode: ${name}`, () => {
      const encoder = new CanonicalEncoder();
      const frame = Buffer.from(encoder.encodeFrame(value));
      const body = Buffer.from(encoder.encode(value));
      assert.ok(joined(encoder.encodeFramePieces(value)).equals(frame));
      assert.ok(joined(encoder.encodePieces(value)).equals(body));
      // An independent decoder reads the joined pieces back.
      assert.deepEqual(new Decoder({ maxArrayLength: 64, maxMapLength: 64, maxBinLength: 1 << 20 }).decode(new Uint8Array(body)), value);
    });
  }

  it('hands large bins over as the same objects, uncopied, and copies small ones', () => {
    const pieces = new CanonicalEncoder().encodeFramePieces({ jsonrpc: '2.0', id: 1, result: { a: big, s: small, b: bigger } });
    assert.equal(pieces.filter((piece) => piece === big).length, 1);
    assert.equal(pieces.filter((piece) => piece === bigger).length, 1);
    assert.ok(!pieces.includes(small));
    assert.equal(pieces.length, 4); // head, big, middle (small copied in), bigger: nothing follows it
  });

  it('never overwrites pieces it returned earlier, across arena changes', () => {
    const encoder = new CanonicalEncoder();
    const kept: { pieces: Uint8Array[]; copy: Buffer }[] = [];
    for (let i = 0; i < 300; i++) {
      const text = i % 50 === 0 ? 'z'.repeat(300_000) : `message ${i}`;
      const value = i % 3 === 0 ? { id: i, text, data: bigger } : { id: i, text };
      const pieces = encoder.encodeFramePieces(value);
      kept.push({ pieces, copy: joined(pieces) });
    }
    for (let i = 0; i < kept.length; i++) assert.ok(joined(kept[i]!.pieces).equals(kept[i]!.copy), `message ${i} was overwritten`);
  });

  it('stays usable after a message that failed after a cut', () => {
    const encoder = new CanonicalEncoder();
    assert.throws(() => encoder.encodeFramePieces({ a: bigger, bad: new Float32Array(1) }), isUnencodable);
    const ok = { jsonrpc: '2.0', id: 2, result: { data: big } };
    assert.ok(joined(encoder.encodeFramePieces(ok)).equals(Buffer.from(new CanonicalEncoder().encodeFrame(ok))));
  });
});
