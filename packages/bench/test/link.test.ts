// --scenario link (issue 41) in its smallest form: one round at one bandwidth, then with an added round-trip
// time. Checks that both servers were measured (opening, the 1 MB object, bytes through the link) and the
// report's rows, not any figure; that the throttling relay holds a body back by its size, and a round trip by
// the added delay (lower bounds against a clock, never timing targets).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { renderLink, runLinkScenario, takeChildExits, ThrottledLink } from 'mcp-msgpack-bench';

describe('--scenario link', { timeout: 120_000 }, () => {
  it('measures the openings on both revisions and a 1 MB object on 2025-11-25, on both stacks, through the throttled link', { timeout: 120_000 }, async () => {
    const rows = await runLinkScenario({ rounds: 1, links: [{ mbit: 100, rttMs: 0 }], log: () => {} });
    // Its servers stopped as the scenario stops them: none died (runner/child-watch.ts).
    assert.deepEqual(takeChildExits(), []);
    assert.deepEqual(
      rows.map((r) => `${r.mbit} ${r.server} ${r.revision}`),
      ['100 stock 2025-11-25', '100 ours 2025-11-25', '100 stock-v2 2026-07-28', '100 ours-v2 2026-07-28'],
    );
    for (const row of rows) {
      assert.equal(row.openMs.length, 1);
      assert.equal(row.recordedOpenMs.length, 1);
      assert.equal(row.objectMs.length, row.revision === '2025-11-25' ? 1 : 0);
      assert.ok(row.openMs[0]! > 0 && row.recordedOpenMs[0]! > 0 && (row.objectMs[0] ?? 1) > 0, JSON.stringify(row));
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
    assert.match(text, /100 Mbit\/s\s+ours\s+2025-11-25/);
    assert.match(text, /100 Mbit\/s\s+ours v2\s+2026-07-28/);
    assert.match(text, /100 Mbit\/s\s+stock v2\s+2026-07-28/);
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

  it("shares its bandwidth among a client's connections, and holds a new connection's first bytes for one round trip", { timeout: 60_000 }, async () => {
    const echo = createServer((socket) => socket.pipe(socket));
    echo.listen(0, '127.0.0.1');
    await once(echo, 'listening');
    // 10 Mbit/s and 20 ms each way: two connections echoing 100,000 bytes each need 160 ms of the link each
    // way together (80 ms each if each had a link of its own), after a 40 ms handshake.
    const link = new ThrottledLink((echo.address() as { port: number }).port, 10_000_000, 20);
    const port = await link.listen();
    const sent = performance.now();
    const echoes = [0, 1].map(async () => {
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      let back = 0;
      const done = new Promise<void>((resolve) =>
        socket.on('data', (chunk: Buffer) => {
          back += chunk.length;
          if (back >= 100_000) resolve();
        }),
      );
      socket.write(Buffer.alloc(100_000, 7));
      await done;
      socket.destroy();
    });
    await Promise.all(echoes);
    const elapsed = performance.now() - sent;
    await link.close();
    echo.close();
    // Handshake 40 + each way 160 of shared link + 20 of delay: lower bounds, never timing targets.
    assert.ok(elapsed >= 40 + 160 + 20, `${elapsed} ms`);
  });

  it("adds the round-trip time it is given: no opening takes less than a connection's handshake and one round trip", { timeout: 120_000 }, async () => {
    const rows = await runLinkScenario({ rounds: 1, links: [{ mbit: 100, rttMs: 60 }], log: () => {} });
    for (const row of rows) assert.ok(row.openMs[0]! >= 2 * 60 * 0.95, `${row.server}: ${row.openMs[0]} ms`);
    assert.match(renderLink(rows, 1), /100 Mbit\/s \+ 60 ms RTT\s+stock/);
  });
});
