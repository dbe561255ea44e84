// The shared probe set (fixtures/probes/, issue 39 item 7) against this media server, on stdio and Streamable
// HTTP, on the runtime running the tests (Node or Bun: listenNode and listenBun are different servers). Every
// case must pass but those fixtures/probes/expected-failures.json lists for the server, and every listed case
// must still fail (the list only shrinks). python/tests/test_probes.py points the same runner and corpus at the
// Python server; `node scripts/probes.mjs` runs both side by side and prints the matrix.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

interface Verdict {
  ok: boolean;
  problems: string[];
  rows: { id: string; outcome: string }[];
}
interface Run {
  results: { id: string; pass: boolean; note?: string }[];
  verdict: Verdict;
}
const runner = (await import(new URL('../../../../scripts/lib/probes/run.mjs', import.meta.url).href)) as {
  runProbes(name: string, options: { runtimeName: string }): Promise<Run>;
};
const runtimeName = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined' ? 'bun' : 'node';

describe(`the shared probe set against the media server (${runtimeName})`, () => {
  for (const name of ['ts-stdio', 'ts-http']) {
    it(`${name}: every case passes but the expected failures, which still fail`, { timeout: 120_000 }, async () => {
      const run = await runner.runProbes(name, { runtimeName });
      assert.ok(run.results.length > 30, `only ${run.results.length} cases ran`);
      assert.deepEqual(run.verdict.problems, [], run.verdict.problems.join('\n'));
      assert.ok(run.verdict.ok);
    });
  }
});
