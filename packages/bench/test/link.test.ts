// --scenario link (issue 41) in its smallest form: one round at one bandwidth, then with an added round-trip
// time. Checks that both servers were measured (opening, the 1 MB object, bytes through the link) and the
// report's rows, not any figure; that the throttling relay holds a body back by its size, and a round trip by
// the added delay (lower bounds against a clock, never timing targets).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderLink, runLinkScenario } from 'mcp-msgpack-bench';

describe('--scenario link', { timeout: 120_000 }, () => {
  it('measures the opening and a 1 MB object on both servers through the throttled link', { timeout: 120_000 }, async () => {
    const rows = await runLinkScenario({ rounds: 1, links: [{ mbit: 100, rttMs: 0 }], log: () => {} });
    assert.deepEqual(
      rows.map((r) => `${r.mbit} ${r.server}`),
      ['100 stock', '100 ours'],
    );
    for (const row of rows) {
      assert.equal(row.openMs.length, 1);
      assert.ok(row.openMs[0]! > 0 && row.objectMs[0]! > 0, JSON.stringify(row));
    }
    // The stock server sends the 1 MB result as it is; ours codes it: fewer bytes through the link, whatever the machine.
    const bytes = (server: string) => rows.find((r) => r.server === server)!.bytes[0]!;
    assert.ok(bytes('stock') > 1_000_000, `${bytes('stock')} bytes`);
    assert.ok(bytes('ours') < bytes('stock') / 2, `${bytes('ours')} against ${bytes('stock')}`);
    // At 100 Mbit/s, 1 MB cannot cross in less than 80 ms: the link holds it back (a lower bound, never a timing target).
    assert.ok(rows.find((r) => r.server === 'stock')!.objectMs[0]! >= 75);
    const text = renderLink(rows, 1);
    assert.match(text, /100 Mbit\/s\s+stock/);
    assert.match(text, /100 Mbit\/s\s+ours/);
  });

  it('adds the round-trip time it is given: no opening takes less than initialize and one more round trip', { timeout: 120_000 }, async () => {
    const rows = await runLinkScenario({ rounds: 1, links: [{ mbit: 100, rttMs: 60 }], log: () => {} });
    for (const row of rows) assert.ok(row.openMs[0]! >= 2 * 60 * 0.95, `${row.server}: ${row.openMs[0]} ms`);
    assert.match(renderLink(rows, 1), /100 Mbit\/s \+ 60 ms RTT\s+stock/);
  });
});
