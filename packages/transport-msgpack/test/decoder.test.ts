// MsgpackDecoder and MsgpackMessageCodec.decodeMessage: what a receiver gets back, and what it can still
// read (the clues) from a message it has to refuse.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PayloadError, type MessageClues } from 'mcp-msgpack-transport';
import { CanonicalEncoder, MsgpackDecoder, MsgpackMessageCodec, type DecodePath } from 'mcp-msgpack-transport/wire';

const u8 = (...values: (number | number[])[]): Uint8Array => new Uint8Array(values.flat());
const str = (s: string): number[] => [...new CanonicalEncoder().encode(s)];

/** Decodes with the codec and returns the clues of the PayloadError it must throw. */
function cluesOfRefusal(payload: Uint8Array): MessageClues | undefined {
  try {
    new MsgpackMessageCodec().decodeMessage(payload);
  } catch (error) {
    assert.ok(error instanceof PayloadError, String(error));
    return error.clues;
  }
  assert.fail('the payload was accepted');
}

for (const decodePath of ['guard-then-msgpackr', 'single-pass'] as DecodePath[]) {
  const decode = (payload: Uint8Array): unknown => new MsgpackDecoder({ decodePath }).decode(payload).value;

  describe(`MsgpackDecoder (${decodePath})`, () => {
    it('refuses an empty payload with empty-payload', () => {
      assert.throws(
        () => decode(new Uint8Array(0)),
        (e: unknown) => e instanceof PayloadError && e.code === 'empty-payload',
      );
    });

    it('decodes integers beyond 2^53 to the nearest number, as JSON.parse does', () => {
      const cases: [Uint8Array, string][] = [
        [u8(0xcf, 0x00, 0x20, 0, 0, 0, 0, 0, 0x01), '9007199254740993'], // 2^53 + 1
        [u8(0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), '18446744073709551615'],
        [u8(0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0), '-9223372036854775808'],
        [u8(0xd3, 0xff, 0xdf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), '-9007199254740993'],
        [u8(0xcf, 0, 0, 0, 0x01, 0, 0, 0, 0), '4294967296'],
      ];
      for (const [payload, text] of cases) {
        const value = decode(payload);
        assert.equal(typeof value, 'number', text);
        assert.equal(value, JSON.parse(text), text);
      }
    });

    it('decodes float32 and float64 as numbers', () => {
      assert.equal(decode(u8(0xca, 0x3f, 0xc0, 0, 0)), 1.5);
      assert.equal(decode(u8(0xcb, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0)), 0.5);
    });

    it('decodes maps as plain objects whose "constructor" and "prototype" keys are only data', () => {
      const payload = u8(0x82, str('constructor'), 0x81, str('prototype'), 0x81, str('polluted'), 0xc3, str('toString'), 0x01);
      const value = decode(payload) as Record<string, unknown>;
      assert.equal(Object.getPrototypeOf(value), Object.prototype);
      assert.deepEqual(value, { constructor: { prototype: { polluted: true } }, toString: 1 });
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });

    it('gives bin back as bytes, and says so, only when bin is allowed', () => {
      const payload = u8(0x81, str('data'), 0xc4, 0x03, 1, 2, 3);
      const decoded = new MsgpackDecoder({ decodePath, allowBin: true }).decode(payload);
      assert.equal(decoded.containsBin, true);
      const data = (decoded.value as { data: Uint8Array }).data;
      assert.ok(data instanceof Uint8Array);
      assert.deepEqual([...data], [1, 2, 3]);
      assert.throws(
        () => new MsgpackDecoder({ decodePath }).decode(payload),
        (e: unknown) => e instanceof PayloadError && e.code === 'forbidden-type',
      );
      assert.equal(new MsgpackDecoder({ decodePath, allowBin: false }).decode(payload, true).containsBin, true, 'the per-call flag wins');
    });

    it('with a huge maxDepth, 10,000 levels is still a clean PayloadError, never a RangeError', () => {
      const payload = u8(new Array(10_000).fill(0x91), 0xc0);
      const decoder = new MsgpackDecoder({ decodePath, maxDepth: 1_000_000 });
      try {
        const value = decoder.decode(payload).value;
        // If the engine managed it, the value must be right.
        let depth = 0;
        for (let v: unknown = value; Array.isArray(v); v = v[0]) depth++;
        assert.equal(depth, 10_000);
      } catch (error) {
        assert.ok(error instanceof PayloadError, `not a PayloadError: ${String(error)}`);
      }
    });
  });
}

describe('MsgpackMessageCodec.decodeMessage: clues from refused messages', () => {
  const badExt = [0xd4, 0x78, 0x00];
  const encoder = new CanonicalEncoder();

  it('recovers an integer or string id that precedes the bad part', () => {
    const request = (id: number[]) => u8(0x84, str('jsonrpc'), str('2.0'), str('id'), id, str('method'), str('x'), str('params'), badExt);
    assert.deepEqual(cluesOfRefusal(request([0x07])), { id: 7, hasMethod: true, hasResultOrError: false });
    assert.deepEqual(cluesOfRefusal(request([0xd1, 0x80, 0x00])), { id: -32768, hasMethod: true, hasResultOrError: false });
    assert.deepEqual(cluesOfRefusal(request([0xce, 0xff, 0xff, 0xff, 0xff])), { id: 2 ** 32 - 1, hasMethod: true, hasResultOrError: false });
    assert.deepEqual(cluesOfRefusal(request([0xcf, 0, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])), { id: 2 ** 53 - 1, hasMethod: true, hasResultOrError: false });
    assert.deepEqual(cluesOfRefusal(request(str('req-1'))), { id: 'req-1', hasMethod: true, hasResultOrError: false });
  });

  it('recovers that a bad message is a response, so the pending request can be failed', () => {
    const response = u8(0x83, str('jsonrpc'), str('2.0'), str('id'), 0x2a, str('result'), 0x81, str('x'), 0xc1);
    assert.deepEqual(cluesOfRefusal(response), { id: 42, hasMethod: false, hasResultOrError: true });
    const error = u8(0x83, str('id'), str('e'), str('error'), 0x82, str('code'), 0x01, str('message'), badExt, str('jsonrpc'), str('2.0'));
    assert.deepEqual(cluesOfRefusal(error), { id: 'e', hasMethod: false, hasResultOrError: true });
  });

  it('recovers no id that comes after the bad part, or that no JSON-RPC id could be', () => {
    const late = u8(0x83, str('method'), badExt, str('id'), 0x01, str('jsonrpc'), str('2.0'));
    assert.deepEqual(cluesOfRefusal(late), { id: undefined, hasMethod: true, hasResultOrError: false });
    const floatId = u8(0x83, str('id'), 0xcb, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0, str('method'), str('x'), str('params'), badExt);
    assert.equal(cluesOfRefusal(floatId)?.id, undefined);
    const unsafeId = u8(0x83, str('id'), 0xcf, 0, 0x20, 0, 0, 0, 0, 0, 0x01, str('method'), str('x'), str('params'), badExt);
    assert.equal(cluesOfRefusal(unsafeId)?.id, undefined, 'an id beyond 2^53 cannot be echoed faithfully');
    const nestedId = u8(0x82, str('params'), 0x81, str('id'), 0x05, str('method'), badExt);
    assert.equal(cluesOfRefusal(nestedId)?.id, undefined, 'only the top-level id counts');
  });

  it('gives clues for well-formed MessagePack that is not JSON-RPC', () => {
    const check = (value: unknown, clues: MessageClues) => {
      assert.throws(
        () => new MsgpackMessageCodec().decodeMessage(encoder.encode(value)),
        (e: unknown) => {
          assert.ok(e instanceof PayloadError && e.code === 'not-json-rpc', String(e));
          assert.deepEqual(e.clues, clues);
          return true;
        },
      );
    };
    check({ jsonrpc: '1.0', id: 3, method: 'x' }, { id: 3, hasMethod: true, hasResultOrError: false });
    check({ jsonrpc: '2.0', id: 'r', result: [1] }, { id: 'r', hasMethod: false, hasResultOrError: true });
    check({ jsonrpc: '2.0', id: 1.5, method: 'x' }, { id: undefined, hasMethod: true, hasResultOrError: false });
    check([1, 2], { hasMethod: false, hasResultOrError: false });
    check('text', { hasMethod: false, hasResultOrError: false });
  });
});
