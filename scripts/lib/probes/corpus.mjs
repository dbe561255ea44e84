// The shared probe corpus (fixtures/probes/, its README.md): reads the case files, expands the fixture sets
// (fixtures/refuse, fixtures/accept) into cases, and turns a case's body notation into bytes.
import { readFileSync } from 'node:fs';
import { CanonicalEncoder } from 'mcp-msgpack-transport/wire';
import { generatedCases } from './generated.mjs';

const root = new URL('../../../', import.meta.url);
export const probesDir = new URL('fixtures/probes/', root).pathname;
const notation = await import(new URL('fixtures/notation.mjs', root).href);

const readJson = (name) => JSON.parse(readFileSync(`${probesDir}${name}`, 'utf8'));

/** { stdio: case[], http: case[], floods: flood[], expectedFailures } with every fixture set expanded. */
export function loadCorpus() {
  const stdio = readJson('stdio.json');
  const http = readJson('http.json');
  const sets = { refuse: notation.loadRefusals(), accept: notation.loadAcceptances() };
  const generated = generatedCases();
  return {
    stdio: unique([...expandSets(stdio.fixtureSets, sets, stdioExpectation), ...stdio.cases, ...generated.stdio]),
    http: unique([...expandSets(http.fixtureSets, sets, httpExpectation), ...http.cases, ...generated.http]),
    floods: http.floods,
    // Servers started with an option (`servers` in http.json), each with its cases; ids prefixed by its name.
    configured: (http.servers ?? []).map((server) => ({ options: server.options, cases: unique(server.cases.map((c) => ({ ...c, id: `${server.name}/${c.id}` }))) })),
    expectedFailures: readJson('expected-failures.json'),
  };
}

/** Case ids name a case in expected-failures.json and the matrix: one id, one case. */
function unique(cases) {
  const seen = new Set();
  for (const c of cases) {
    if (seen.has(c.id)) throw new Error(`fixtures/probes: two cases named ${c.id}`);
    seen.add(c.id);
  }
  return cases;
}

function expandSets(fixtureSets, sets, expectation) {
  const cases = [];
  for (const set of fixtureSets) {
    const known = new Set(sets[set.from].map((fixture) => fixture.name));
    for (const name of set.except) if (!known.has(name)) throw new Error(`fixtures/probes: ${set.from}/${name} in "except" is no fixture`);
    for (const fixture of sets[set.from]) {
      // A set with `nativeBytes` takes the fixtures received with the extension in force (allowBin), the others the rest.
      if (set.except.includes(fixture.name) || Boolean(fixture.allowBin) !== Boolean(set.nativeBytes)) continue;
      const id = `${set.from}/${fixture.name}`;
      cases.push({
        id,
        rule: `${set.rule} (fixture ${fixture.rule ?? 'accept'}${fixture.code ? `, ${fixture.code}` : ''})`,
        nativeBytes: set.nativeBytes,
        session: set.session,
        after: set.after,
        body: { fixture: id },
        frame: { fixture: id },
        expect: set.expect ?? expectation(set.from, fixture),
      });
    }
  }
  return cases;
}

/**
 * On a stream (5.2): a refusal is answered by id as the source's `answer` says; where it says nothing, either
 * nothing comes back or one error with 4.3's code and data.reason (the id may be readable before the fault).
 * An acceptance (a response to no pending request) gets nothing back. Either way the connection goes on.
 */
function stdioExpectation(from, fixture) {
  if (from === 'accept') return { silent: true };
  if (fixture.answer) return { error: { id: fixture.answer.id, code: fixture.answer.code, reason: fixture.code } };
  return { errorIfAny: { code: jsonRpcCode(fixture), reason: fixture.code } };
}

/** 4.3's table: -32600 for 4.2 (decoded, not JSON-RPC), -32700 for the rules of 4.1 and 8.3. */
const jsonRpcCode = (fixture) => (fixture.rule === '4.2' ? -32600 : -32700);

/** As an HTTP body (9.4): 400, -32600 for 4.2 (not JSON-RPC), -32700 for the rules of 4.1 and 8.3, data.reason the code. */
function httpExpectation(from, fixture) {
  if (from === 'accept') return { status: 202 };
  return { status: 400, error: { code: jsonRpcCode(fixture), reason: fixture.code } };
}

const fixtureBytes = new Map();
/** `refuse/NAME` or `accept/NAME`: the fixture's payload (no frame header). */
export function fixturePayload(ref) {
  if (!fixtureBytes.has(ref)) {
    const [from, name] = ref.split('/');
    const list = from === 'refuse' ? notation.loadRefusals() : from === 'accept' ? notation.loadAcceptances() : [];
    const fixture = list.find((each) => each.name === name);
    if (!fixture) throw new Error(`fixtures/probes: no fixture ${ref}`);
    fixtureBytes.set(ref, fixture.payload);
  }
  return fixtureBytes.get(ref);
}

const encoder = new CanonicalEncoder();
const utf8 = new TextEncoder();

export const PROTOCOL_VERSION = '2025-11-25';
export const NATIVE_BYTES = 'io.github.mcp-msgpack/native-bytes';
/** The initialize request `{"$initialize": ID}` stands for; with `nativeBytes`, offering the extension under both keys (8.1). */
export function initializeRequest(id, nativeBytes = false) {
  const capabilities = nativeBytes ? { extensions: { [NATIVE_BYTES]: { version: 1 } }, experimental: { 'mcp-msgpack/native-bytes': { version: 1 } } } : {};
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION, capabilities, clientInfo: { name: 'mcp-msgpack-probes', version: '1' } } };
}

/** Whether an initialize result confirms native bytes (8.1: `extensions` decides when it holds the entry). */
export function confirmsNativeBytes(result) {
  const entry = result?.capabilities?.extensions?.[NATIVE_BYTES] ?? result?.capabilities?.experimental?.['mcp-msgpack/native-bytes'];
  return entry?.version === 1;
}

/** Replaces `{dir}` and `{port}` in every string, and `{"$initialize": ID}`, then the fixture notation. */
export function materialize(value, vars) {
  if (typeof value === 'string') return value.replaceAll('{dir}', vars.dir ?? '').replaceAll('{port}', String(vars.port ?? ''));
  if (Array.isArray(value)) return value.map((item) => materialize(item, vars));
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === '$initialize') return initializeRequest(value.$initialize);
  // $array's copies are expanded by the notation, after the one item is materialized.
  const out = {};
  for (const key of keys) out[key] = materialize(value[key], vars);
  return out;
}

/** A body or frame source: `fixture`, `hex`, `message` (notation, encoded canonically), `json` (text) or `none`. */
export function payloadOf(source, vars) {
  if (source.none) return null;
  if (source.fixture) return fixturePayload(source.fixture);
  if (source.hex !== undefined) return notation.hexToBytes(source.hex);
  if (source.json !== undefined) return utf8.encode(JSON.stringify(materialize(source.json, vars)));
  if (source.message !== undefined) return encoder.encodeFrame(notation.expand(materialize(source.message, vars))).subarray(4);
  throw new Error(`fixtures/probes: a body needs fixture, hex, message, json or none: ${JSON.stringify(source)}`);
}

/** A stdio frame source: a payload source (framed here), `raw`: hex sent as it is (a broken frame), or `line`: a JSON-wire line (7.4). */
export function frameOf(source, vars) {
  if (source.raw !== undefined) return notation.hexToBytes(source.raw);
  if (source.line !== undefined) return utf8.encode(`${materialize(source.line, vars)}\n`);
  return notation.frameAround(payloadOf(source, vars));
}
