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
import { decodeBudgetOf } from './fixtures/edge-fixtures.js';
import { type Budget, type BudgetPart, allowances, budgetOf, countBudget, referenceReceive } from './fixtures/reference-receiver.js';

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
  /** The decode budget the payload is judged under (fixtures/README.md); undefined: the default. */
  budget?: Partial<Budget>;
  /** For an edge fixture, the part of the budget it stands exactly at (accept/) or one past (refuse/). */
  edge?: BudgetPart;
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
      const codec = new MsgpackMessageCodec({ decodeBudget: decodeBudgetOf(refusal.budget), ...(refusal.allowBin ? { adapter: inForceAdapter() } : {}) });
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
        () => referenceReceive(refusal.payload, refusal.allowBin, { budget: budgetOf(refusal.budget) }),
        (e: unknown) => {
          assert.ok((e as Error).message.startsWith(prefix), `${refusal.name}: "${(e as Error).message}" should start with "${prefix}"`);
          return true;
        },
      );
    }
  });
});

describe('must-accept fixtures (SPEC.md 3.4, and the edges of 4.1.9)', () => {
  it('this package decodes each to its message; a non-canonical one re-encodes canonically (other bytes)', () => {
    const encoder = new CanonicalEncoder();
    for (const acceptance of acceptances) {
      assert.deepEqual(payloadOf(new Uint8Array(readFileSync(acceptance.framePath))), acceptance.payload, acceptance.name);
      const decodeBudget = decodeBudgetOf(acceptance.budget);
      // bin as bytes, to compare with the source; then the whole receiver, native bytes in force (8.3 included).
      const decoded = new MsgpackMessageCodec({ decodeBudget, ...(acceptance.allowBin ? { adapter: binAdapter } : {}) }).decodeMessage(acceptance.payload);
      assert.deepEqual(comparable(decoded), comparable(acceptance.message), acceptance.name);
      if (acceptance.allowBin) assert.ok(new MsgpackMessageCodec({ decodeBudget, adapter: inForceAdapter() }).decodeMessage(acceptance.payload), acceptance.name);
      if (acceptance.edge === undefined) assert.notDeepEqual(encoder.encode(decoded), acceptance.payload, `${acceptance.name} is canonical: it belongs in cases/`);
    }
  });

  it('the independent receiver decodes each to the same message (but invalid UTF-8, see below)', () => {
    for (const acceptance of acceptances) {
      if (acceptance.name === 'invalid-utf8') continue;
      const decoded = referenceReceive(acceptance.payload, acceptance.allowBin, { budget: budgetOf(acceptance.budget) });
      assert.deepEqual(comparable(decoded), comparable(acceptance.message), acceptance.name);
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

describe('edge fixtures (SPEC.md 4.1.9: accept/edge-* exactly at an allowance, refuse/edge-* one past it)', () => {
  const acceptEdges = acceptances.filter((a) => a.edge !== undefined);
  const refuseEdges = refusals.filter((r) => r.edge !== undefined);

  it('come in pairs, one pair at least for each of the four allowances', () => {
    assert.deepEqual(
      acceptEdges.map((a) => [a.name, a.edge]),
      refuseEdges.map((r) => [r.name, r.edge]),
    );
    assert.deepEqual(new Set(acceptEdges.map((a) => a.edge)), new Set(['words', 'containers', 'shortKeys', 'shapes']));
    for (const refusal of refuseEdges) assert.equal(refusal.code, 'over-budget', refusal.name);
  });

  it('each stands where it says, counted on its bytes by the independent receiver: at its allowance, or one past, and within the others', () => {
    const parts = ['containers', 'shortKeys', 'shapes', 'words'] as const;
    for (const [fixture, past] of [...acceptEdges.map((a) => [a, 0] as const), ...refuseEdges.map((r) => [r, 1] as const)]) {
      const counts = countBudget(fixture.payload);
      const allowed = allowances(budgetOf(fixture.budget), fixture.payload.length);
      for (const part of parts) {
        if (part === fixture.edge) assert.equal(counts[part], allowed[part] + past, `${fixture.name}: ${part}`);
        else assert.ok(counts[part] <= allowed[part], `${fixture.name}: ${part} ${counts[part]} over ${allowed[part]}`);
      }
    }
  });

  it('an accept/ and its refuse/ are the same size: one unit more, not one byte more, crosses the edge', () => {
    for (const acceptance of acceptEdges) {
      const refusal = refuseEdges.find((r) => r.name === acceptance.name)!;
      assert.equal(refusal.payload.length, acceptance.payload.length, acceptance.name);
      assert.deepEqual(refusal.budget, acceptance.budget, acceptance.name);
    }
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
