// --scenario link (issue 41) in its smallest form: one round at one bandwidth, then with an added round-trip
// time. Checks that both servers were measured (opening, the 1 MB object, bytes through the link) and the
// report's rows, not any figure; that the throttling relay holds a body back by its size, and a round trip by
// the added delay (lower bounds against a clock, never timing targets).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { renderLink, runLinkScenario, ThrottledLink } from 'mcp-msgpack-bench';

describe('--scenario link', { timeout: 120_000 }, () => {
  it('measures the opening and a 1 MB object on both servers through the throttled link', { timeout: 120_000 }, async () => {
    const rows = await runLinkScenario({ rounds: 1, links: [{ mbit: 100, rttMs: 0 }], log: () => {} });
    assert.deepEqual(
      rows.map((r) => `${r.mbit} ${r.server}`),
      ['100 stock', '100 ours'],
    );
    for (const row of rows) {
      assert.equal(row.openMs.length, 1);
      assert.equal(row.recordedOpenMs.length, 1);
      assert.ok(row.openMs[0]! > 0 && row.recordedOpenMs[0]! > 0 && row.objectMs[0]! > 0, JSON.stringify(row));
    }
    // The stock server sends the 1 MB result as it is; ours codes it: fewer bytes through the link, whatever the machine.
    const bytes = (server: string) => rows.find((r) => r.server === server)!.bytes[0]!;
    assert.ok(bytes('stock') > 1_000_000, `${bytes('stock')} bytes`);
    assert.ok(bytes('ours') < bytes('stock') / 2, `${bytes('ours')} against ${bytes('stock')}`);
    // At 100 Mbit/s, 1 MB cannot cross in less than 80 ms: the link holds it back (a lower bound, never a timing target).
    assert.ok(rows.find((r) => r.server === 'stock')!.objectMs[0]! >= 75);
    const text = renderLink(rows, 1, 'this runtime');
    assert.match(text, /^link on this runtime:/);
    assert.match(text, /fs opening p50/);
    assert.match(text, /100 Mbit\/s\s+stock/);
    assert.match(text, /100 Mbit\/s\s+ours/);
  });

  it('writes small chunks without a timer tick yet holds many back to the bandwidth', { timeout: 60_000 }, async () => {
    // An echo server behind a 10 Mbit/s link: 200 chunks of 1,000 bytes, each due 0.8 ms after the one before,
    // most of them sooner than a timer can fire, must still take the 160 ms their bits need on the link.
    const echo = createServer((socket) => socket.pipe(socket));
    echo.listen(0, '127.0.0.1');
    await once(echo, 'listening');
    const link = new ThrottledLink((echo.address() as { port: number }).port, 10_000_000);
    const socket = connect(await link.listen(), '127.0.0.1');
    await once(socket, 'connect');
    socket.setNoDelay(true);
    const total = 200 * 1000;
    const sent = performance.now();
    let back = 0;
    const done = new Promise<void>((resolve) =>
      socket.on('data', (chunk: Buffer) => {
        back += chunk.length;
        if (back >= total) resolve();
      }),
    );
    for (let i = 0; i < 200; i++) socket.write(Buffer.alloc(1000, i));
    await done;
    const elapsed = performance.now() - sent;
    socket.destroy();
    await link.close();
    echo.close();
    assert.equal(back, total);
    // Each way through the link: 160 ms at 10 Mbit/s; at most a timer's granularity (1 ms) early.
    assert.ok(elapsed >= 159, `${elapsed} ms`);
    assert.equal(link.received, total);
  });

  it('adds the round-trip time it is given: no opening takes less than initialize and one more round trip', { timeout: 120_000 }, async () => {
    const rows = await runLinkScenario({ rounds: 1, links: [{ mbit: 100, rttMs: 60 }], log: () => {} });
    for (const row of rows) assert.ok(row.openMs[0]! >= 2 * 60 * 0.95, `${row.server}: ${row.openMs[0]} ms`);
    assert.match(renderLink(rows, 1), /100 Mbit\/s \+ 60 ms RTT\s+stock/);
  });
});
