// checkJsonRpcMessage must accept exactly what the SDK's JSONRPCMessageSchema accepts (but for `id: null` on
// error responses, see zodAccepts): both are run over a shared hand-written corpus (with the verdict each case
// should get) and over generated messages.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as sdk from '@modelcontextprotocol/sdk/types.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import * as ours from 'mcp-msgpack-transport/wire';
import { checkJsonRpcMessage } from 'mcp-msgpack-transport/wire';

const RELATED = 'io.modelcontextprotocol/related-task';
const req = (extra: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', ...extra });
const note = (extra: Record<string, unknown>) => ({ jsonrpc: '2.0', method: 'notifications/progress', ...extra });
const res = (extra: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 1, ...extra });
const err = (error: unknown, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 1, error, ...extra });
const withMeta = (meta: unknown) => req({ params: { name: 'x', _meta: meta } });

/** [name, value, valid]: what each case should get from both validators. */
const corpus: [string, unknown, boolean][] = [
  // Requests
  ['request: minimal', req({}), true],
  ['request: params object', req({ params: { name: 'echo', arguments: { text: 'hi' } } }), true],
  ['request: empty params', req({ params: {} }), true],
  ['request: string id', req({ id: 'abc' }), true],
  ['request: empty string id', req({ id: '' }), true],
  ['request: id 0', req({ id: 0 }), true],
  ['request: negative id', req({ id: -5 }), true],
  ['request: id 2^53-1', req({ id: 2 ** 53 - 1 }), true],
  ['request: id -(2^53-1)', req({ id: -(2 ** 53 - 1) }), true],
  ['request: id 2^53 (unsafe)', req({ id: 2 ** 53 }), false],
  ['request: id -2^53 (unsafe)', req({ id: -(2 ** 53) }), false],
  ['request: id 1e300', req({ id: 1e300 }), false],
  ['request: float id', req({ id: 1.5 }), false],
  ['request: null id', req({ id: null }), false],
  ['request: boolean id', req({ id: true }), false],
  ['request: object id', req({ id: {} }), false],
  ['request: array id', req({ id: [1] }), false],
  ['request: NaN id', req({ id: NaN }), false],
  ['request: Infinity id', req({ id: Infinity }), false],
  ['request: empty method', req({ method: '' }), true],
  ['request: numeric method', req({ method: 1 }), false],
  ['request: null method', req({ method: null }), false],
  ['request: params array', req({ params: [1, 2] }), false],
  ['request: params null', req({ params: null }), false],
  ['request: params string', req({ params: 'x' }), false],
  ['request: params number', req({ params: 3 }), false],
  ['request: extra key', req({ extra: 1 }), false],
  ['request: extra key "result"', req({ result: {} }), false],
  ['request: extra key "error"', req({ error: { code: 1, message: 'm' } }), false],
  ['request: with both method and result and no id', { jsonrpc: '2.0', method: 'x', result: {} }, false],
  ['request: jsonrpc "1.0"', req({ jsonrpc: '1.0' }), false],
  ['request: jsonrpc 2', req({ jsonrpc: 2 }), false],
  ['request: jsonrpc 2.0 number', req({ jsonrpc: 2.0 }), false],
  ['request: jsonrpc missing', { id: 1, method: 'x' }, false],
  ['request: unknown keys inside params are allowed', req({ params: { anything: [1, { deep: null }] } }), true],
  // _meta
  ['_meta: empty', withMeta({}), true],
  ['_meta: string progressToken', withMeta({ progressToken: 'p' }), true],
  ['_meta: integer progressToken', withMeta({ progressToken: 7 }), true],
  ['_meta: negative progressToken', withMeta({ progressToken: -7 }), true],
  ['_meta: float progressToken', withMeta({ progressToken: 0.5 }), false],
  ['_meta: unsafe progressToken', withMeta({ progressToken: 2 ** 60 }), false],
  ['_meta: null progressToken', withMeta({ progressToken: null }), false],
  ['_meta: boolean progressToken', withMeta({ progressToken: false }), false],
  ['_meta: object progressToken', withMeta({ progressToken: {} }), false],
  ['_meta: extra keys allowed', withMeta({ progressToken: 1, 'vendor.example/trace': { id: 'x' } }), true],
  ['_meta: null', withMeta(null), false],
  ['_meta: array', withMeta([]), false],
  ['_meta: string', withMeta('meta'), false],
  ['_meta: related-task with taskId', withMeta({ [RELATED]: { taskId: 't-1' } }), true],
  ['_meta: related-task with extra keys', withMeta({ [RELATED]: { taskId: 't-1', more: 1 } }), true],
  ['_meta: related-task numeric taskId', withMeta({ [RELATED]: { taskId: 1 } }), false],
  ['_meta: related-task without taskId', withMeta({ [RELATED]: {} }), false],
  ['_meta: related-task null', withMeta({ [RELATED]: null }), false],
  ['_meta: related-task array', withMeta({ [RELATED]: ['t-1'] }), false],
  ['_meta: related-task string', withMeta({ [RELATED]: 't-1' }), false],
  // Notifications
  ['notification: minimal', note({}), true],
  ['notification: params', note({ params: { progressToken: 'p', progress: 1 } }), true],
  ['notification: params _meta token', note({ params: { _meta: { progressToken: 3 } } }), true],
  ['notification: params _meta bad token', note({ params: { _meta: { progressToken: 3.5 } } }), false],
  ['notification: params array', note({ params: [] }), false],
  ['notification: params null', note({ params: null }), false],
  ['notification: extra key', note({ extra: true }), false],
  ['notification: method missing', { jsonrpc: '2.0', params: {} }, false],
  ['notification: jsonrpc "1.0"', note({ jsonrpc: '1.0' }), false],
  // Result responses
  ['result: empty', res({ result: {} }), true],
  ['result: content', res({ result: { content: [{ type: 'text', text: 'x' }] } }), true],
  ['result: string id', res({ id: 'r', result: {} }), true],
  ['result: _meta', res({ result: { _meta: { progressToken: 'p', other: 1 } } }), true],
  ['result: _meta bad token', res({ result: { _meta: { progressToken: [] } } }), false],
  ['result: _meta related-task', res({ result: { _meta: { [RELATED]: { taskId: 'x' } } } }), true],
  ['result: _meta related-task bad', res({ result: { _meta: { [RELATED]: { taskId: false } } } }), false],
  ['result: _meta null', res({ result: { _meta: null } }), false],
  ['result: array', res({ result: [] }), false],
  ['result: null', res({ result: null }), false],
  ['result: string', res({ result: 'ok' }), false],
  ['result: number', res({ result: 0 }), false],
  ['result: boolean', res({ result: true }), false],
  ['result: missing id', { jsonrpc: '2.0', result: {} }, false],
  ['result: null id', res({ id: null, result: {} }), false],
  ['result: float id', res({ id: 2.5, result: {} }), false],
  ['result: unsafe id', res({ id: 2 ** 53 + 2, result: {} }), false],
  ['result: extra key', res({ result: {}, extra: 1 }), false],
  ['result: both result and error', res({ result: {}, error: { code: 1, message: 'm' } }), false],
  ['result: jsonrpc "1.0"', res({ jsonrpc: '1.0', result: {} }), false],
  // Error responses
  ['error: minimal', err({ code: -32601, message: 'Method not found' }), true],
  ['error: with data', err({ code: -32602, message: 'bad', data: { detail: [1] } }), true],
  ['error: data null', err({ code: 1, message: 'm', data: null }), true],
  ['error: extra key in error object', err({ code: 1, message: 'm', extra: 1 }), true],
  ['error: without id', { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } }, true],
  ['error: string id', err({ code: 1, message: 'm' }, { id: 'e' }), true],
  ['error: null id', err({ code: 1, message: 'm' }, { id: null }), true],
  ['error: float id', err({ code: 1, message: 'm' }, { id: 0.1 }), false],
  ['error: code float', err({ code: 1.5, message: 'm' }), false],
  ['error: code unsafe', err({ code: 2 ** 53, message: 'm' }), false],
  ['error: code string', err({ code: '-32601', message: 'm' }), false],
  ['error: code missing', err({ message: 'm' }), false],
  ['error: message missing', err({ code: 1 }), false],
  ['error: message number', err({ code: 1, message: 1 }), false],
  ['error: empty message', err({ code: 0, message: '' }), true],
  ['error: error null', err(null), false],
  ['error: error array', err([]), false],
  ['error: error string', err('boom'), false],
  ['error: extra top-level key', err({ code: 1, message: 'm' }, { data: 1 }), false],
  ['error: jsonrpc "1.0"', err({ code: 1, message: 'm' }, { jsonrpc: '1.0' }), false],
  // Not messages at all
  ['top level: empty object', {}, false],
  ['top level: only jsonrpc', { jsonrpc: '2.0' }, false],
  ['top level: only id', { jsonrpc: '2.0', id: 1 }, false],
  ['top level: array (batch)', [req({})], false],
  ['top level: empty array', [], false],
  ['top level: null', null, false],
  ['top level: string', '{"jsonrpc":"2.0"}', false],
  ['top level: number', 1, false],
  ['top level: boolean', true, false],
  ['top level: bytes', new Uint8Array([0x81]), false],
];

/**
 * The SDK's verdict, with the one documented difference (SPEC.md 4.2): JSON-RPC 2.0 gives an error
 * response whose request id could not be read `"id": null`, and servers send it (the SDK's own HTTP server
 * does); the v1 SDK schema refuses it, msgpack-v1 receivers accept it as an error response without an id.
 */
const zodAccepts = (value: unknown): boolean => JSONRPCMessageSchema.safeParse(nullIdAsAbsent(value)).success;

function nullIdAsAbsent(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  if (record.id !== null || !('error' in record) || 'method' in record || 'result' in record) return value;
  const { id: _id, ...rest } = record;
  return rest;
}
const weAccept = (value: unknown): boolean => checkJsonRpcMessage(value) === undefined;

describe('checkJsonRpcMessage vs the SDK JSONRPCMessageSchema', () => {
  it('the hand-written corpus is large and covers both verdicts', () => {
    assert.ok(corpus.length >= 80, `${corpus.length} cases`);
    assert.ok(corpus.filter(([, , valid]) => valid).length >= 30);
    assert.ok(corpus.filter(([, , valid]) => !valid).length >= 50);
    assert.equal(new Set(corpus.map(([name]) => name)).size, corpus.length, 'case names are unique');
  });

  it('gives the verdict the SDK gives on every hand-written case', () => {
    for (const [name, value, valid] of corpus) {
      assert.equal(zodAccepts(value), valid, `the SDK's verdict on "${name}" is not the one written down`);
      assert.equal(weAccept(value), valid, `${name}: ${checkJsonRpcMessage(value)}`);
    }
  });

  it('explains each refusal', () => {
    for (const [name, value, valid] of corpus) {
      if (!valid) assert.match(checkJsonRpcMessage(value) ?? '', /\S/, name);
    }
  });

  it('gives the verdict the SDK gives on generated messages near the schema boundaries', () => {
    let accepted = 0;
    fc.assert(
      fc.property(nearMessage(), (value) => {
        const verdict = zodAccepts(value);
        assert.equal(weAccept(value), verdict, `${checkJsonRpcMessage(value)}: ${describeValue(value)}`);
        if (verdict) accepted++;
      }),
      { numRuns: 4000 },
    );
    // Near the boundaries means both verdicts come up often (fast-check may add shrink runs; none on success).
    assert.ok(accepted > 400 && accepted < 3600, `${accepted} of 4000 generated messages were valid`);
  });

  it('gives the verdict the SDK gives on arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        assert.equal(weAccept(value), zodAccepts(value));
      }),
      { numRuns: 1000 },
    );
  });
});

// Our own guards replace the SDK's at runtime (the package imports no SDK): same verdicts, message by message.
const GUARDS = ['isJSONRPCRequest', 'isJSONRPCNotification', 'isJSONRPCResultResponse', 'isJSONRPCErrorResponse', 'isInitializeRequest', 'isInitializedNotification'] as const;
const initialize = (params: unknown) => ({ jsonrpc: '2.0', id: 1, method: 'initialize', params });
const initializeCases: unknown[] = [
  initialize({ protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }),
  initialize({ protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c' } }),
  initialize({ protocolVersion: 1, capabilities: {}, clientInfo: { name: 'c', version: '1' } }),
  initialize({ protocolVersion: '2025-11-25', clientInfo: { name: 'c', version: '1' } }),
  initialize({ protocolVersion: '2025-11-25', capabilities: [], clientInfo: { name: 'c', version: '1' } }),
  initialize(undefined),
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', method: 'notifications/initialized', id: 3 },
  { method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } },
];

/** The SDK's initialize guards check the MCP shape only; ours also require a valid request / notification. */
function sdkVerdict(guard: (typeof GUARDS)[number], value: unknown): boolean {
  // With the one documented difference: an error response with `id: null` (see zodAccepts).
  // biome-ignore lint/performance/noDynamicNamespaceImportAccess: the test runs each of the SDK's guards by name
  const verdict = (sdk[guard] as (v: unknown) => boolean)(nullIdAsAbsent(value));
  if (guard === 'isInitializeRequest') return verdict && sdk.isJSONRPCRequest(value);
  if (guard === 'isInitializedNotification') return verdict && sdk.isJSONRPCNotification(value);
  return verdict;
}

describe('the message-kind guards vs the SDK guards of the same names', () => {
  it('give the SDK v1 verdicts on the corpus, initialize cases and generated messages', () => {
    const values = [...corpus.map(([, value]) => value), ...initializeCases, ...fc.sample(nearMessage(), 3000)];
    const seen = new Map<string, number>();
    for (const value of values) {
      for (const guard of GUARDS) {
        const verdict = sdkVerdict(guard, value);
        // biome-ignore lint/performance/noDynamicNamespaceImportAccess: each of our guards, by name, against the SDK's
        assert.equal(ours[guard](value), verdict, `${guard}: ${describeValue(value)}`);
        if (verdict) seen.set(guard, (seen.get(guard) ?? 0) + 1);
      }
    }
    // Each guard said yes to some values, so the comparison covered both verdicts.
    for (const guard of GUARDS) assert.ok((seen.get(guard) ?? 0) > 0, `${guard} never said yes`);
  });
});

// ---- generated messages: every field drawn from valid and almost-valid values, sometimes left out ----

const OMIT = Symbol('omit');
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ arbitrary: arb, weight: 3 }, { arbitrary: fc.constant(OMIT), weight: 1 });
const json = fc.jsonValue({ maxDepth: 2 });
const idLike = fc.oneof(
  { arbitrary: fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -1000, max: 1000 })), weight: 3 },
  { arbitrary: fc.constantFrom<unknown>(0, -0, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, -(2 ** 53), 2 ** 63, 0.5, -1.25, NaN, Infinity, null, true, false), weight: 2 },
  { arbitrary: fc.constantFrom<unknown>([], {}, [1], { id: 1 }), weight: 1 },
);
/** Mostly left out: a key that does not belong to the kind of message drawn. */
const rarely = (arb: fc.Arbitrary<unknown>) => fc.oneof({ arbitrary: fc.constant(OMIT), weight: 12 }, { arbitrary: arb, weight: 1 });
const meta = fc.oneof(
  { arbitrary: record({ progressToken: maybe(idLike), [RELATED]: rarely(fc.oneof(record({ taskId: maybe(idLike), extra: maybe(json) }), idLike)), other: maybe(json) }), weight: 4 },
  { arbitrary: fc.constantFrom<unknown>(null, [], 'm', 1), weight: 1 },
);
const paramsLike = fc.oneof(
  { arbitrary: record({ _meta: rarely(meta), name: maybe(json), arguments: maybe(json) }), weight: 6 },
  { arbitrary: record({ _meta: meta }), weight: 2 },
  { arbitrary: fc.constantFrom<unknown>(null, [], [1], 'p', 0, true), weight: 1 },
);
const errorLike = fc.oneof(
  {
    arbitrary: record({
      code: fc.oneof(fc.integer(), idLike),
      message: fc.oneof({ arbitrary: fc.string({ maxLength: 5 }), weight: 4 }, { arbitrary: idLike, weight: 1 }),
      data: maybe(json),
      extra: rarely(json),
    }),
    weight: 6,
  },
  { arbitrary: record({ code: maybe(idLike), message: maybe(idLike) }), weight: 1 },
  { arbitrary: fc.constantFrom<unknown>(null, [], 'e', 1), weight: 1 },
);
const jsonrpc = fc.oneof({ arbitrary: fc.constant<unknown>('2.0'), weight: 12 }, { arbitrary: fc.constantFrom<unknown>('1.0', '2', 2, null, OMIT), weight: 1 });
const method = fc.oneof({ arbitrary: fc.string({ maxLength: 6 }), weight: 8 }, { arbitrary: fc.constantFrom<unknown>(1, null, OMIT), weight: 1 });
// One arbitrary per message kind, each with its fields drawn near their rules and, rarely, a stray key.
const messageLike = fc.oneof(
  record({ jsonrpc, id: idLike, method, params: maybe(paramsLike), result: rarely(paramsLike), extra: rarely(json) }),
  record({ jsonrpc, method, params: maybe(paramsLike), error: rarely(errorLike), extra: rarely(json) }),
  record({ jsonrpc, id: maybe(idLike), result: paramsLike, method: rarely(method), extra: rarely(json) }),
  record({ jsonrpc, id: maybe(idLike), result: rarely(paramsLike), error: errorLike, extra: rarely(json) }),
);

function nearMessage(): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: messageLike, weight: 20 }, { arbitrary: fc.array(messageLike, { maxLength: 2 }), weight: 1 }, { arbitrary: json, weight: 1 });
}

/** An object of the given fields, leaving out those that drew OMIT. */
function record(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(fields).map((drawn) => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(drawn)) if (value !== OMIT) out[key] = value;
    return out;
  });
}

function describeValue(value: unknown): string {
  return fc.stringify(value).slice(0, 300);
}
