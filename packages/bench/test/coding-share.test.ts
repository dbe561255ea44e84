// The compression venue's report line on what the coding itself costs (report/coding-share.ts): our coding's
// added server CPU against gzip 6's, from the variants' medians, for this build and a --baseline's.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codingShareLines, renderText, type ScenarioResult } from 'mcp-msgpack-bench';
import { resultOf } from './fixtures/result.js';

function variant(id: string, cpuMs: number, failed?: string): ScenarioResult['variants'][number] {
  return { id, label: id, values: { cpu: cpuMs }, ...(failed ? { failed } : {}) };
}

function scenario(venue: ScenarioResult['venue'], variants: ScenarioResult['variants']): ScenarioResult {
  return { name: 'compression-fs-session/http-1', venue, title: 'recorded', runtime: 'node', transport: 'http', clients: 1, rounds: 6, callsPerRound: 10, warmupCalls: 0, variants, comparisons: [], notes: [] };
}

const four = [variant('json', 0.335), variant('json-gzip6', 1.252), variant('compressed', 0.656), variant('msgpack', 0.25)];

describe("the compression venue's coding share", () => {
  it('is (compressed - msgpack) / (json-gzip6 - json), in µs and as a ratio', () => {
    const line = codingShareLines(scenario('compression', four));
    assert.match(line, /ours 406 µs \(compressed - msgpack\), gzip 6 917 µs \(json-gzip6 - json\): 0\.44x/);
    assert.ok(renderText(resultOf([scenario('compression', four)]), { details: true }).includes(line.trim()), 'in the details, under the measured values');
  });

  it('gives a line for the baseline build of an A/B run too', () => {
    const both = [...four, ...four.map((v) => variant(`${v.id}@baseline`, (v.values.cpu ?? 0) * 2))];
    const lines = codingShareLines(scenario('compression', both)).trim().split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[1]!, /\(baseline\).*ours 812 µs.*gzip 6 1834 µs.*: 0\.44x/);
  });

  it('says nothing outside the compression venue, without one of the four variants, or with one failed', () => {
    assert.equal(codingShareLines(scenario('object', four)), '');
    assert.equal(codingShareLines(scenario('compression', four.slice(1))), '');
    assert.equal(codingShareLines(scenario('compression', [...four.slice(0, 3), variant('msgpack', 0.25, 'server died')])), '');
  });

  it('does not divide by a gzip 6 that added nothing', () => {
    const line = codingShareLines(scenario('compression', [variant('json', 0.5), variant('json-gzip6', 0.5), variant('compressed', 0.6), variant('msgpack', 0.4)]));
    assert.match(line, /n\/a/);
  });
});
