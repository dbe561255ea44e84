// The two decode paths side by side: guardPayload + msgpackr (MsgpackDecoder's 'guard-then-msgpackr') and the
// single-pass guardedDecode. On any bytes, valid or hostile, they must agree: the same value (and containsBin),
// or the same PayloadError (code, message and clues). Values are also checked against @msgpack/msgpack.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decoder as ReferenceDecoder, Encoder as ReferenceEncoder } from '@msgpack/msgpack';
import fc from 'fast-check';
import { PayloadError } from 'mcp-msgpack-transport';
import { CanonicalEncoder, DEFAULT_DECODE_BUDGET, MsgpackDecoder, containerAllowance, guardedDecode, shortKeyAllowance, wordAllowance, type DecodeBudget } from 'mcp-msgpack-transport/wire';
import { decodeBudgetOf } from './fixtures/edge-fixtures.js';
import type { Budget } from './fixtures/reference-receiver.js';

interface Limits {
  maxDepth: number;
  allowBin: boolean;
  /** As a message codec decodes: bin only as a `data` or `blob` member. */
  binOnlyAtMediaKeys?: boolean;
  budget: DecodeBudget;
}

const DEFAULT_LIMITS: Limits = { maxDepth: 128, allowBin: true, budget: DEFAULT_DECODE_BUDGET };

type Outcome = { value: unknown; containsBin: boolean } | { code: string; message: string; clues: unknown };

function outcome(run: () => { value: unknown; containsBin: boolean }): Outcome {
  try {
    const { value, containsBin } = run();
    return { value, containsBin };
  } catch (error) {
    assert.ok(error instanceof PayloadError, `not a PayloadError: ${String(error)}`);
    return { code: error.code, message: error.message, clues: error.clues };
  }
}

/** Today's reference path, and guardedDecode itself (not through MsgpackDecoder, which may scan first). */
function bothPaths(payload: Uint8Array, limits: Limits = DEFAULT_LIMITS): [Outcome, Outcome] {
  const reference = new MsgpackDecoder({ decodePath: 'guard-then-msgpackr', maxDepth: limits.maxDepth, allowBin: limits.allowBin, binOnlyAtMediaKeys: limits.binOnlyAtMediaKeys, decodeBudget: limits.budget });
  const options = {
    maxDepth: limits.maxDepth,
    allowBin: limits.allowBin,
    binOnlyAtMediaKeys: limits.binOnlyAtMediaKeys,
    maxContainers: containerAllowance(payload.length, limits.budget),
    maxShortKeys: shortKeyAllowance(payload.length, limits.budget),
    maxWords: wordAllowance(payload.length, limits.budget),
  };
  return [outcome(() => reference.decode(payload)), outcome(() => guardedDecode(payload, options))];
}

function assertSameOutcome(payload: Uint8Array, limits?: Limits): Outcome {
  const [reference, single] = bothPaths(payload, limits);
  assert.deepStrictEqual(single, reference, Buffer.from(payload).toString('hex').slice(0, 400));
  return single;
}

// Generated values: every JSON type, keys and strings of every kind (ASCII, multi-byte, long), integers of
// every width including beyond 2^53, floats, and bins.
// __proto__ is refused (tested below, with the damaged payloads), so generated keys leave it out.
const key = fc
  .oneof(fc.string({ maxLength: 20 }), fc.string({ unit: 'grapheme', maxLength: 6 }), fc.constantFrom('id', 'method', 'result', 'error', 'type', '__proto__x', 'data', 'blob'))
  .filter((k) => k !== '__proto__');
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 20 }), fc.string({ minLength: 200, maxLength: 400 }));
const number = fc.oneof(
  fc.integer(),
  fc.integer({ min: -40, max: 300 }),
  fc.maxSafeInteger(),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }).map(Number),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const leaf = fc.oneof(text, number, fc.boolean(), fc.constant(null), fc.uint8Array({ maxLength: 40 }));
const { value: jsonLike } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('value'), { maxLength: 20 }), fc.dictionary(key, tie('value'), { maxKeys: 20 })),
}));
const message = fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 })), result: jsonLike }, { requiredKeys: ['jsonrpc'] });

const canonical = new CanonicalEncoder();
const referenceEncoder = new ReferenceEncoder();
const referenceDecoder = new ReferenceDecoder();

describe('decode paths: generated values', () => {
  it('guard + msgpackr, guardedDecode and @msgpack/msgpack decode canonical payloads to the same value', () => {
    fc.assert(
      fc.property(fc.oneof(jsonLike, message), (value) => {
        const payload = canonical.encode(value).slice();
        const decoded = assertSameOutcome(payload);
        assert.ok('value' in decoded);
        assert.deepStrictEqual(decoded.value, referenceDecoder.decode(payload));
      }),
      { numRuns: 600 },
    );
  });

  it('they agree on rows of short strings spanning many of the windows short ASCII strings are cut from on Bun', () => {
    // Short ASCII strings among multi-byte ones, long ones and bins, repeated and unique, as values and keys,
    // over payloads of many 256-byte windows: strings start, end and straddle windows at every offset.
    const shortAscii = fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)), maxLength: 16 });
    const cell = fc.oneof({ weight: 6, arbitrary: shortAscii }, fc.string({ unit: 'grapheme', maxLength: 6 }), fc.string({ minLength: 17, maxLength: 300 }), fc.uint8Array({ maxLength: 300 }));
    const rows = fc.array(
      fc.oneof(
        fc.array(cell, { maxLength: 8 }),
        fc.dictionary(
          shortAscii.filter((k) => k !== '__proto__'),
          cell,
          { maxKeys: 6, noNullPrototype: true },
        ),
      ),
      { minLength: 50, maxLength: 300 },
    );
    fc.assert(
      fc.property(rows, (value) => {
        const payload = new Uint8Array(canonical.encode({ jsonrpc: '2.0', id: 'rows', result: { rows: value } })); // not a Buffer: bins come back as plain views
        const decoded = assertSameOutcome(payload);
        assert.ok('value' in decoded);
        assert.deepStrictEqual((decoded.value as { result: unknown }).result, { rows: value });
      }),
      { numRuns: 150 },
    );
  });

  it('they agree on payloads from another encoder (@msgpack/msgpack: other header choices)', () => {
    fc.assert(
      fc.property(fc.oneof(jsonLike, message), (value) => {
        assertSameOutcome(referenceEncoder.encode(value));
      }),
      { numRuns: 300 },
    );
  });
});

// Bytes that make interesting damage: every forbidden type, container and string headers, floats, __proto__.
const hostileByte = fc.oneof(
  fc.constantFrom(0xc1, 0xc4, 0xc5, 0xc6, 0xc7, 0xd4, 0xd8, 0xca, 0xcb, 0xcf, 0xd3, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0x80, 0x81, 0x8f, 0x90, 0x9f, 0xa9, 0xff, 0x7f, 0xc0),
  fc.integer({ min: 0, max: 255 }),
);
const edit = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(), byte: hostileByte }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes: fc.array(hostileByte, { minLength: 1, maxLength: 6 }) }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('proto' as const), at: fc.nat() }),
);
type Edit = typeof edit extends fc.Arbitrary<infer T> ? T : never;
const PROTO = [0xa9, ...Buffer.from('__proto__')];

function applyEdits(payload: Uint8Array, edits: Edit[]): Uint8Array {
  let bytes = [...payload];
  for (const e of edits) {
    const at = bytes.length === 0 ? 0 : e.at % bytes.length;
    if (e.kind === 'set') bytes[at] = e.byte;
    else if (e.kind === 'insert') bytes.splice(at, 0, ...e.bytes);
    else if (e.kind === 'cut') bytes = bytes.slice(0, Math.max(1, at));
    else bytes.splice(at, 0, ...PROTO);
  }
  return new Uint8Array(bytes);
}

const limits: fc.Arbitrary<Limits> = fc.record({
  maxDepth: fc.oneof(fc.constant(128), fc.integer({ min: 1, max: 6 })),
  allowBin: fc.boolean(),
  binOnlyAtMediaKeys: fc.boolean(),
  budget: fc.oneof(
    fc.constant(DEFAULT_DECODE_BUDGET),
    fc.record({
      base: fc.integer({ min: 0, max: 12 }),
      bytesPerContainer: fc.integer({ min: 1, max: 40 }),
      keyBase: fc.integer({ min: 0, max: 12 }),
      bytesPerShortKey: fc.integer({ min: 3, max: 64 }),
      wordBase: fc.oneof(fc.constant(Infinity), fc.integer({ min: 0, max: 60 })),
      bytesPerWord: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 8 })),
    }),
  ),
});

describe('decode paths: damaged and hostile payloads', () => {
  it('agree on the value or on the error (code, message, clues) for damaged messages', () => {
    fc.assert(
      fc.property(message, fc.array(edit, { minLength: 1, maxLength: 4 }), limits, (value, edits, chosen) => {
        const payload = applyEdits(canonical.encode(value), edits);
        if (payload.length > 0) assertSameOutcome(payload, chosen);
      }),
      { numRuns: 2000 },
    );
  });

  it('agree on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), limits, (payload, chosen) => {
        assertSameOutcome(payload, chosen);
      }),
      { numRuns: 2000 },
    );
  });

  it('agree on ill-formed UTF-8 in values, keys and the top-level id, which becomes U+FFFD as TextDecoder says', () => {
    const decoder = new TextDecoder();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (raw) => {
        const str = [0xd9, raw.length, ...raw];
        const asValue = assertSameOutcome(new Uint8Array(str));
        assert.ok('value' in asValue);
        assert.equal(asValue.value, decoder.decode(raw));
        const asKey = assertSameOutcome(new Uint8Array([0x81, ...str, 0xc0]));
        if ('value' in asKey) assert.deepEqual(Object.keys(asKey.value as object), [decoder.decode(raw)]);
        // An id followed by a refused value: the clue holds the id as decoded.
        const refused = assertSameOutcome(new Uint8Array([0x82, 0xa2, 0x69, 0x64, ...str, 0xa6, ...Buffer.from('method'), 0xc1]));
        assert.ok('clues' in refused);
        assert.deepEqual(refused.clues, { id: decoder.decode(raw), hasMethod: true, hasResultOrError: false });
      }),
      { numRuns: 500 },
    );
  });

  it('agree on every refuse and accept fixture', async () => {
    const root = new URL('../../../../', import.meta.url);
    const notation = (await import(new URL('fixtures/notation.mjs', root).href)) as {
      loadRefusals(): Array<{ name: string; allowBin: boolean; budget?: Partial<Budget>; payload: Uint8Array; code: string; rule: string }>;
      loadAcceptances(): Array<{ name: string; budget?: Partial<Budget>; payload: Uint8Array }>;
    };
    // Each judged under the budget its source names (the edge fixtures), the default otherwise.
    for (const refusal of notation.loadRefusals()) {
      if (refusal.payload.length === 0) continue;
      const single = assertSameOutcome(refusal.payload, { ...DEFAULT_LIMITS, allowBin: refusal.allowBin, binOnlyAtMediaKeys: true, budget: decodeBudgetOf(refusal.budget) });
      // 4.2 and 8.3 are checked on the decoded message (SPEC.md 4.3): both paths decode it.
      if (refusal.rule === '4.2' || refusal.rule === '8.3') assert.ok('value' in single, refusal.name);
      else assert.ok('code' in single && single.code === refusal.code, refusal.name);
    }
    for (const acceptance of notation.loadAcceptances()) assert.ok('value' in assertSameOutcome(acceptance.payload, { ...DEFAULT_LIMITS, budget: decodeBudgetOf(acceptance.budget) }), acceptance.name);
  });

  it('bins are views of the payload, as msgpackr gives them', () => {
    const payload = new Uint8Array([0x81, 0xa4, ...Buffer.from('data'), 0xc4, 0x03, 1, 2, 3]);
    const { value, containsBin } = guardedDecode(payload, { maxDepth: 128, allowBin: true, maxContainers: 10 });
    const data = (value as { data: Uint8Array }).data;
    assert.equal(containsBin, true);
    assert.equal(data.buffer, payload.buffer);
    assert.equal(data.byteOffset, 8);
  });
});

describe('decode paths: MsgpackDecoder', () => {
  it('on the single-pass path, scans first a payload that could break the container budget, so a refused one builds nothing', () => {
    // 16 MiB of empty maps: allowed about 2.2 million containers, so it can hold more. Built, they would take
    // hundreds of MB before the breach is found; scanned first, the refusal comes before anything is built.
    const count = 16 * 1024 * 1024;
    const payload = new Uint8Array(5 + count).fill(0x80);
    payload[0] = 0xdd;
    new DataView(payload.buffer).setUint32(1, count);
    const before = process.memoryUsage().heapUsed;
    assert.throws(
      () => new MsgpackDecoder({ decodePath: 'single-pass' }).decode(payload),
      (e: unknown) => e instanceof PayloadError && e.code === 'over-budget',
    );
    assert.ok(process.memoryUsage().heapUsed - before < 64 * 1024 * 1024);
  });

  it('both paths give the same value for large payloads (scanned first on the single-pass path)', () => {
    const value = { jsonrpc: '2.0', id: 1, result: { rows: Array.from({ length: 20_000 }, (_, i) => ({ name: `file${i}`, size: i * 1000, tags: ['a', 'b'] })) } };
    const payload = canonical.encode(value).slice();
    assert.ok(payload.length > containerAllowance(payload.length), 'large enough to be scanned first');
    const single = new MsgpackDecoder({ decodePath: 'single-pass' }).decode(payload);
    const reference = new MsgpackDecoder({ decodePath: 'guard-then-msgpackr' }).decode(payload);
    assert.deepStrictEqual(single, reference);
    assert.deepStrictEqual(single.value, value);
  });
});
