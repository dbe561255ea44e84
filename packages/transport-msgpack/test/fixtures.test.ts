// The golden fixtures (fixtures/README.md) against this package's encoder and decoder, and against an
// independent MessagePack implementation (@msgpack/msgpack) held to safe limits.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Decoder } from '@msgpack/msgpack';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CanonicalEncoder, MsgpackDecoder, MsgpackMessageCodec, NativeBytesAdapter, PayloadError, checkJsonRpcMessage, type MessageAdapter } from 'mcp-msgpack-transport';

interface Fixture {
  name: string;
  description: string;
  allowBin: boolean;
  message: unknown;
  framePath: string;
}

const root = new URL('../../../../', import.meta.url);
const notation = (await import(new URL('fixtures/notation.mjs', root).href)) as { loadFixtures(): Fixture[] };
const fixtures = notation.loadFixtures();
const frames = new Map(fixtures.map((f) => [f.name, new Uint8Array(readFileSync(f.framePath))]));

function frameOf(fixture: Fixture): Uint8Array {
  return frames.get(fixture.name)!;
}

function payloadOf(frame: Uint8Array): Uint8Array {
  const length = new DataView(frame.buffer, frame.byteOffset, frame.byteLength).getUint32(0);
  assert.equal(length, frame.length - 4, 'the header must hold the payload length');
  return frame.subarray(4);
}

/** Makes decoded values comparable: any Uint8Array (Buffer or not) as plain bytes, bigint as number. */
function comparable(value: unknown): unknown {
  if (value instanceof Uint8Array) return { bytes: [...value] };
  if (typeof value === 'bigint') {
    const n = Number(value);
    assert.ok(Number.isSafeInteger(n), `fixture integer ${value} is beyond 2^53`);
    return n;
  }
  if (Array.isArray(value)) return value.map(comparable);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, comparable(v)]));
  }
  return value;
}

const binAdapter: MessageAdapter = { toWire: (m) => m, fromWire: (v) => v, binAllowed: true };

describe('golden fixtures', () => {
  it('has at least 30 fixtures, each with a frame', () => {
    assert.ok(fixtures.length >= 30, `only ${fixtures.length} fixtures`);
    for (const fixture of fixtures) assert.ok(frameOf(fixture).length > 4, fixture.name);
  });

  it('every fixture is a valid JSON-RPC message', () => {
    for (const fixture of fixtures) assert.equal(checkJsonRpcMessage(fixture.message), undefined, fixture.name);
  });

  it('the encoder produces every frame byte for byte', () => {
    const encoder = new CanonicalEncoder();
    for (const fixture of fixtures) {
      const frame = encoder.encodeFrame(fixture.message);
      assert.deepEqual(Buffer.from(frame).toString('hex'), Buffer.from(frameOf(fixture)).toString('hex'), fixture.name);
    }
  });

  it('the decoder gives back every message', () => {
    const plain = new MsgpackMessageCodec();
    const withBin = new MsgpackMessageCodec({ adapter: binAdapter });
    for (const fixture of fixtures) {
      const codec = fixture.allowBin ? withBin : plain;
      const decoded = codec.decodeMessage(payloadOf(frameOf(fixture)));
      assert.deepEqual(comparable(decoded), comparable(fixture.message), fixture.name);
    }
  });

  it('a bin fixture is refused where bin is not negotiated', () => {
    const binFixtures = fixtures.filter((f) => f.allowBin);
    assert.ok(binFixtures.length > 0);
    for (const fixture of binFixtures) {
      const payload = payloadOf(frameOf(fixture));
      assert.throws(() => new MsgpackMessageCodec().decodeMessage(payload), (e: unknown) => e instanceof PayloadError && e.code === 'forbidden-type');
      assert.ok(new MsgpackDecoder({ allowBin: true }).decode(payload).containsBin);
    }
  });

  it('@msgpack/msgpack, with every length limit set to the frame size, decodes every frame to the same value', () => {
    for (const fixture of fixtures) {
      const frame = frameOf(fixture);
      const limit = frame.length;
      const decoder = new Decoder({
        useBigInt64: true,
        maxStrLength: limit,
        maxBinLength: limit,
        maxArrayLength: limit,
        maxMapLength: limit,
        maxExtLength: limit,
      });
      assert.deepEqual(comparable(decoder.decode(payloadOf(frame))), comparable(fixture.message), fixture.name);
    }
  });

  it('generate.mjs --check finds no drift between sources and frames', () => {
    const result = spawnSync(process.execPath, [new URL('fixtures/generate.mjs', root).pathname, '--check'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(result.status, 0, `generate.mjs --check failed:\n${result.stdout}${result.stderr}`);
    assert.match(result.stdout, new RegExp(`${fixtures.length} fixtures match`));
  });
});

describe('golden fixtures: native bytes per request (2026-07-28, SPEC.md 8.1)', () => {
  const byName = (name: string) => fixtures.find((f) => f.name === name)!;
  const decodeWith = (adapter: NativeBytesAdapter, name: string) => new MsgpackMessageCodec({ adapter }).decodeMessage(payloadOf(frameOf(byName(name))));

  it('the bin answer is accepted by a client whose request offered it, refused by one whose did not', () => {
    const offering = new NativeBytesAdapter('client');
    offering.toWire(byName('native-bytes-per-request-offer').message as JSONRPCMessage, 'msgpack');
    assert.ok(decodeWith(offering, 'native-bytes-per-request-result'));
    const other = new NativeBytesAdapter('client');
    assert.throws(() => decodeWith(other, 'native-bytes-per-request-result'), (error: unknown) => error instanceof PayloadError && error.code === 'forbidden-type');
  });

  it('a request with bin in its inputResponses is accepted by a stateless server when it offers the extension itself', () => {
    const server = new NativeBytesAdapter('server', {}, { stateless: true });
    const request = decodeWith(server, 'native-bytes-input-responses') as unknown as { params: { inputResponses: { look: { content: { data: unknown } } } } };
    assert.equal(typeof request.params.inputResponses.look.content.data, 'string', 'handed on as base64');
    const refusing = new NativeBytesAdapter('server', { negotiate: false });
    assert.throws(() => decodeWith(refusing, 'native-bytes-input-responses'), (error: unknown) => error instanceof PayloadError && error.code === 'forbidden-type');
  });
});
