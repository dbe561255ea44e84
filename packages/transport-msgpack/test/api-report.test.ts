// The public surface is deliberate: the declarations the build publishes must match the checked-in
// api-report.md (scripts/api-report.mjs writes it). A change to an entry's names or signatures fails here
// until the report is regenerated and committed with it. Needs `npm run build` (dist/).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const script = new URL('../../../../scripts/api-report.mjs', import.meta.url);
const report = new URL('../../api-report.md', import.meta.url);

describe('the API report', () => {
  it('matches the published declarations (else run `node scripts/api-report.mjs` and commit api-report.md)', async () => {
    const { apiReport } = (await import(script.href)) as { apiReport: () => string };
    assert.equal(apiReport(), readFileSync(report, 'utf8'));
  });

  it('lists the root on Node and Bun with every name of the core and the runtime entries', async () => {
    const text = readFileSync(report, 'utf8');
    const namesOf = (title: string) => {
      const section = text.split(`\n## ${title}\n`)[1]!.split('\n## ')[0]!;
      return new Set([...section.matchAll(/^- `(\w+)`/gm)].map((m) => m[1]!));
    };
    const root = namesOf('mcp-msgpack-transport (Node, Bun)');
    for (const entry of ['mcp-msgpack-transport (Deno, Workers, browsers: the core)', 'mcp-msgpack-transport/stdio', 'mcp-msgpack-transport/node', 'mcp-msgpack-transport/bun']) {
      assert.deepEqual(
        [...namesOf(entry)].filter((name) => !root.has(name)),
        [],
        `${entry} has names the root lacks`,
      );
    }
  });
});
