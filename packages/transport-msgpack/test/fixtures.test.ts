// The golden fixtures (fixtures/README.md) against this package's encoder and decoder, and against an
// independent MessagePack implementation (@msgpack/msgpack) held to safe limits.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Decoder } from '@msgpack/msgpack';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { PayloadError } from 'mcp-msgpack-transport';
import { CanonicalEncoder, MsgpackDecoder, MsgpackMessageCodec, NativeBytesAdapter, checkJsonRpcMessage, type MessageAdapter } from 'mcp-msgpack-transport/wire';

interface Fixture {
  name: string;
  description: string;
  allowBin: boolean;
  message: unknown;
  /** What a receiver gets back: the message, except where the wire cannot carry it exactly. */
  decoded: unknown;
  framePath: string;
}

interface PayloadCase {
  name: string;
  description: string;
  allowBin: boolean;
  payload: Uint8Array;
  framePath: string;
}
interface Refusal extends PayloadCase {
  rule: string;
  code: PayloadError['code'];
}
interface Acceptance extends PayloadCase {
  message: unknown;
}

const root = new URL('../../../../', import.meta.url);
const notation = (await import(new URL('fixtures/notation.mjs', root).href)) as {
  loadFixtures(): Fixture[];
  loadRefusals(): Refusal[];
  loadAcceptances(): Acceptance[];
};
const fixtures = notation.loadFixtures();
const refusals = notation.loadRefusals();
const acceptances = notation.loadAcceptances();
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
  // A receiver gives integers beyond 2^53 as the nearest binary64 (SPEC.md 3.3); Number() rounds so.
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(comparable);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, comparable(v)]));
  }
  return value;
}

const binAdapter: MessageAdapter = { toWire: (m) => m, fromWire: (v) => v, binAllowed: true };

/**
 * What a refuse/ source's `allowBin` means (fixtures/README.md): received on a connection where native bytes
 * are in force, negotiated in initialize. A server's adapter, after it confirmed the client's offer.
 */
function inForceAdapter(): NativeBytesAdapter {
  const adapter = new NativeBytesAdapter('server');
  const capabilities = { extensions: { 'io.github.mcp-msgpack/native-bytes': { version: 1 } } };
  adapter.fromWire({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'c', version: '1' } } }, 'msgpack', false);
  adapter.toWire({ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } } } as JSONRPCMessage, 'msgpack');
  assert.ok(adapter.negotiated, 'native bytes in force');
  return adapter;
}

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
      assert.deepEqual(comparable(decoded), comparable(fixture.decoded), fixture.name);
    }
  });

  it('a bin fixture is refused where bin is not negotiated', () => {
    const binFixtures = fixtures.filter((f) => f.allowBin);
    assert.ok(binFixtures.length > 0);
    for (const fixture of binFixtures) {
      const payload = payloadOf(frameOf(fixture));
      assert.throws(
        () => new MsgpackMessageCodec().decodeMessage(payload),
        (e: unknown) => e instanceof PayloadError && e.code === 'forbidden-type',
      );
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
      assert.deepEqual(comparable(decoder.decode(payloadOf(frame))), comparable(fixture.decoded), fixture.name);
    }
  });

  it('generate.mjs --check finds no drift between sources and frames', () => {
    const result = spawnSync(process.execPath, [new URL('fixtures/generate.mjs', root).pathname, '--check'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(result.status, 0, `generate.mjs --check failed:\n${result.stdout}${result.stderr}`);
    assert.match(result.stdout, new RegExp(`${fixtures.length} fixtures, ${refusals.length} refusals, ${acceptances.length} acceptances, \\d+ streams match`));
  });
});

describe('must-refuse fixtures (SPEC.md 4)', () => {
  it('cover every rule of section 4 with at least one payload', () => {
    const rules = new Set(refusals.map((r) => r.rule));
    for (const rule of ['4.1.1', '4.1.2', '4.1.3', '4.1.4', '4.1.5', '4.1.6', '4.1.7', '4.1.8', '4.1.9', '4.1.10', '4.2', '8.3']) assert.ok(rules.has(rule), rule);
  });

  it('each frame holds its payload, and this package refuses it with the code the source names', () => {
    for (const refusal of refusals) {
      const frame = new Uint8Array(readFileSync(refusal.framePath));
      assert.deepEqual(payloadOf(frame), refusal.payload, refusal.name);
      const codec = new MsgpackMessageCodec(refusal.allowBin ? { adapter: inForceAdapter() } : {});
      assert.throws(
        () => codec.decodeMessage(refusal.payload),
        (e: unknown) => e instanceof PayloadError && e.code === refusal.code,
        `${refusal.name} (rule ${refusal.rule}) should be refused with ${refusal.code}`,
      );
    }
  });

  it('an independent receiver (@msgpack/msgpack plus the rules of section 4) refuses each one, for the same rule', () => {
    // Rules the decoder enforces itself are reported as "decode:"; the rest by the rule's number.
    const byDecoder = new Set(['4.1.2', '4.1.5', '4.1.7', '4.1.8']);
    for (const refusal of refusals) {
      const prefix = byDecoder.has(refusal.rule) ? 'decode: ' : `${refusal.rule}: `;
      assert.throws(
        () => referenceReceive(refusal.payload, refusal.allowBin),
        (e: unknown) => {
          assert.ok((e as Error).message.startsWith(prefix), `${refusal.name}: "${(e as Error).message}" should start with "${prefix}"`);
          return true;
        },
      );
    }
  });
});

describe('accept-noncanonical fixtures (SPEC.md 3.4)', () => {
  it('this package decodes each to its message, and re-encodes it canonically (other bytes)', () => {
    const encoder = new CanonicalEncoder();
    for (const acceptance of acceptances) {
      assert.deepEqual(payloadOf(new Uint8Array(readFileSync(acceptance.framePath))), acceptance.payload, acceptance.name);
      const decoded = new MsgpackMessageCodec().decodeMessage(acceptance.payload);
      assert.deepEqual(comparable(decoded), comparable(acceptance.message), acceptance.name);
      assert.notDeepEqual(encoder.encode(decoded), acceptance.payload, `${acceptance.name} is canonical: it belongs in cases/`);
    }
  });

  it('the independent receiver decodes each to the same message (but invalid UTF-8, see below)', () => {
    for (const acceptance of acceptances) {
      if (acceptance.name === 'invalid-utf8') continue;
      assert.deepEqual(comparable(referenceReceive(acceptance.payload, false)), comparable(acceptance.message), acceptance.name);
    }
  });

  it('@msgpack/msgpack decodes short invalid UTF-8 leniently (not as 3.3 says), so the reference uses TextDecoder', () => {
    const invalid = acceptances.find((a) => a.name === 'invalid-utf8')!;
    const lenient = new Decoder().decode(invalid.payload) as { result: Record<string, string> };
    assert.notDeepEqual(lenient.result, (invalid.message as { result: unknown }).result);
    const strict = referenceReceive(invalid.payload, false, { utf8: 'text-decoder' });
    assert.deepEqual(strict, invalid.message);
  });
});

/**
 * A msgpack-v1 receiver written from SPEC.md section 4 alone, on @msgpack/msgpack: decodes, then walks
 * the value for what 4.1 refuses, then checks 4.2. Throws on anything a receiver must refuse.
 */
function referenceReceive(payload: Uint8Array, allowBin: boolean, options: { utf8?: 'text-decoder' } = {}): unknown {
  if (payload.length === 0) throw new Error('decode: empty payload');
  const limit = payload.length;
  const decoder = new Decoder({
    maxStrLength: limit,
    maxBinLength: limit,
    maxArrayLength: limit, // 4.1.7: every item takes at least a byte
    maxMapLength: Math.floor(limit / 2), // and every entry two
    maxExtLength: limit,
    useBigInt64: true,
    rawStrings: options.utf8 === 'text-decoder',
    mapKeyConverter: (key: unknown) => {
      if (typeof key === 'string') return key;
      if (key instanceof Uint8Array && options.utf8 === 'text-decoder') return new TextDecoder().decode(key);
      throw new Error('4.1.4: a map key that is not a str');
    },
  });
  let value: unknown;
  try {
    value = decoder.decode(payload); // 4.1.2 (c1), 4.1.5 (__proto__), 4.1.7 (lengths), 4.1.8 (truncated, trailing bytes)
  } catch (error) {
    if ((error as Error).message.startsWith('4.1.')) throw error;
    throw new Error(`decode: ${(error as Error).message}`);
  }
  let containers = 0;
  const allowance = 65_536 + Math.floor(payload.length / 8);
  // key: the map key the value stands under, if any (a bin may stand only under `data` or `blob`, 4.1.3).
  const walk = (v: unknown, depth: number, key?: string): unknown => {
    if (typeof v === 'number' && !Number.isFinite(v)) throw new Error('4.1.10: NaN or Infinity');
    if (v instanceof Uint8Array) {
      if (options.utf8 === 'text-decoder') return new TextDecoder().decode(v);
      if (!allowBin) throw new Error('4.1.3: bin without native bytes');
      if (key !== 'data' && key !== 'blob') throw new Error('4.1.3: bin outside a data or blob member');
      if (++containers > allowance) throw new Error('4.1.9: over the decode budget');
      return v;
    }
    if (v === null || typeof v !== 'object') return v;
    if (!Array.isArray(v) && Object.getPrototypeOf(v) !== Object.prototype) throw new Error(`4.1.1: an ext value (${Object.prototype.toString.call(v)})`);
    if (depth + 1 > 128) throw new Error('4.1.6: too deep');
    if (++containers > allowance) throw new Error('4.1.9: over the decode budget');
    if (Array.isArray(v)) return v.map((item) => walk(item, depth + 1));
    return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item, depth + 1, k)]));
  };
  const message = walk(value, 0);
  checkKeyBudget(message, payload.length);
  checkWordBudget(message, payload.length);
  if (allowBin) checkMediaFields(message);
  const problem = checkJsonRpcMessage(message);
  if (problem) throw new Error(`4.2: ${problem}`);
  return message;
}
describe('golden fixtures: native bytes per request (2026-07-28, SPEC.md 8.1)', () => {
  const byName = (name: string) => fixtures.find((f) => f.name === name)!;
  const decodeWith = (adapter: NativeBytesAdapter, name: string) => new MsgpackMessageCodec({ adapter }).decodeMessage(payloadOf(frameOf(byName(name))));

  it('the bin answer is accepted by a client whose request offered it, refused by one whose did not', () => {
    const offering = new NativeBytesAdapter('client');
    offering.toWire(byName('native-bytes-per-request-offer').message as JSONRPCMessage, 'msgpack');
    assert.ok(decodeWith(offering, 'native-bytes-per-request-result'));
    const other = new NativeBytesAdapter('client');
    assert.throws(
      () => decodeWith(other, 'native-bytes-per-request-result'),
      (error: unknown) => error instanceof PayloadError && error.code === 'forbidden-type',
    );
  });

  it('a request with bin in its inputResponses is accepted by a stateless server when it offers the extension itself', () => {
    const server = new NativeBytesAdapter('server', {}, { stateless: true });
    const request = decodeWith(server, 'native-bytes-input-responses') as unknown as { params: { inputResponses: { look: { content: { data: unknown } } } } };
    assert.equal(typeof request.params.inputResponses.look.content.data, 'string', 'handed on as base64');
    const refusing = new NativeBytesAdapter('server', { negotiate: false });
    assert.throws(
      () => decodeWith(refusing, 'native-bytes-input-responses'),
      (error: unknown) => error instanceof PayloadError && error.code === 'forbidden-type',
    );
  });
});

/**
 * SPEC.md 4.1.9's key half, from the decoded value: distinct keys shorter than 16 UTF-8 bytes, and distinct
 * map shapes (the sequences of a map's first k keys, k up to 1,024), each at most 8,192 + N / 128. Keys come
 * back in insertion order here, which holds for every key the fixtures use (none looks like an array index).
 */
/** SPEC.md 8.3, from 8.2's list alone: every bin of the message stands at one of the media fields, or it is refused. */
function checkMediaFields(message: unknown): void {
  const allowed = new Set<unknown>();
  const record = (v: unknown): Record<string, unknown> | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array) ? (v as Record<string, unknown>) : undefined);
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);
  const block = (b: unknown, nested = true): void => {
    const it = record(b);
    if (!it) return;
    if (it.type === 'image' || it.type === 'audio') allowed.add(it.data);
    if (it.type === 'resource') allowed.add(record(it.resource)?.blob);
    if (it.type === 'tool_result' && nested) for (const inner of list(it.content)) block(inner, false);
  };
  const blocks = (content: unknown): void => {
    for (const b of list(content)) block(b);
  };
  const samplingMessages = (params: unknown): void => {
    for (const m of list(record(params)?.messages)) blocks(record(m)?.content);
  };
  const top = record(message);
  const result = record(top?.result);
  const params = record(top?.params);
  if (result) {
    if ('content' in result) blocks(result.content);
    for (const m of list(result.messages)) blocks(record(m)?.content);
    for (const c of list(result.contents)) allowed.add(record(c)?.blob);
    for (const r of Object.values(record(result.inputRequests) ?? {})) if (record(r)?.method === 'sampling/createMessage') samplingMessages(record(r)?.params);
  }
  if (params && top?.method === 'sampling/createMessage') samplingMessages(params);
  for (const r of Object.values(record(params?.inputResponses) ?? {})) blocks(record(r)?.content);
  const stack: unknown[] = [message];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value instanceof Uint8Array) {
      if (!allowed.has(value)) throw new Error('8.3: bin outside the media fields of 8.2');
    } else if (value !== null && typeof value === 'object') stack.push(...Object.values(value));
  }
}

/** 4.1.9's words of built values, counted on the decoded value: 1 a value, 7 more an array or map, 47 more a bin, 6 more a str of 2-15 bytes. */
function checkWordBudget(message: unknown, payloadBytes: number): void {
  const allowance = 262_144 + payloadBytes;
  let words = 0;
  const stack: unknown[] = [message];
  while (stack.length > 0) {
    const value = stack.pop();
    words++;
    if (typeof value === 'string') {
      const bytes = Buffer.byteLength(value);
      if (bytes >= 2 && bytes < 16) words += 6;
    } else if (value instanceof Uint8Array) words += 47;
    else if (value !== null && typeof value === 'object') {
      words += 7;
      stack.push(...(Array.isArray(value) ? value : Object.values(value)));
    }
  }
  if (words > allowance) throw new Error('4.1.9: over the decode budget (words of built values)');
}

function checkKeyBudget(message: unknown, payloadBytes: number): void {
  const allowance = 8_192 + Math.floor(payloadBytes / 128);
  const keys = new Set<string>();
  const shapes = new Set<string>();
  const stack: unknown[] = [message];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object' || value instanceof Uint8Array) continue;
    if (Array.isArray(value)) {
      stack.push(...value);
      continue;
    }
    let shape = '';
    Object.keys(value).forEach((key, k) => {
      if (Buffer.byteLength(key) < 16) keys.add(key);
      if (k < 1024) shapes.add((shape += `\u0000${key}`));
    });
    stack.push(...Object.values(value));
  }
  if (keys.size > allowance) throw new Error('4.1.9: over the decode budget (distinct short keys)');
  if (shapes.size > allowance) throw new Error('4.1.9: over the decode budget (map shapes)');
}
