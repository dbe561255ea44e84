// The bounded flood (issue 39 item 6): `idle` connections that send nothing and `partialHeaders` connections
// that send half a request head are opened and held; meanwhile a new client must initialize and get a ping
// answered, within the case's `withinMs`. Loopback only; the counts are the corpus's (2,000 + 2,000) or the
// runner's --flood, scaled down to what this process's open-file limit (`ulimit -n`) allows, and said so.
import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { runHttpCases } from './http.mjs';

const CONNECT_WAIT_MS = 20_000;
/** Descriptors kept free for everything else the runner (and, on the same limit, the server) has open. */
const SPARE_DESCRIPTORS = 256;

/** The soft limit on open files this process (and the servers it starts) inherited; Infinity when unlimited. */
function openFileLimit() {
  const shown = spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).stdout?.trim();
  return shown === 'unlimited' ? Number.POSITIVE_INFINITY : Number(shown) || 1024;
}

/** The counts asked for, halved together until both fit under the open-file limit. */
export function floodCounts(idle, partial, limit = openFileLimit()) {
  const room = Math.max(0, limit - SPARE_DESCRIPTORS);
  if (idle + partial <= room) return { idle, partial, scaled: null };
  const scale = room / (idle + partial);
  return { idle: Math.floor(idle * scale), partial: Math.floor(partial * scale), scaled: `scaled down from ${idle} + ${partial} to fit ulimit -n ${limit}` };
}

/** { id, rule, pass, detail, ms }: ms from the held connections' being open to the new client's answer. */
export async function runFlood(url, flood, vars, counts = {}) {
  const { idle, partial, scaled } = floodCounts(counts.idle ?? flood.idle, counts.partialHeaders ?? flood.partialHeaders);
  const sockets = [];
  let closedByServer = 0;
  const open = (head) =>
    new Promise((resolve) => {
      const socket = connect({ host: url.hostname, port: Number(url.port) });
      sockets.push(socket);
      const timer = setTimeout(() => resolve(false), CONNECT_WAIT_MS);
      socket.on('connect', () => {
        clearTimeout(timer);
        if (head) socket.write(head);
        resolve(true);
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        clearTimeout(timer);
        closedByServer++;
        resolve(false);
      });
    });
  const head = `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/msgpack\r\n`;
  try {
    const opened = [];
    // In waves, so the listen backlog is not the thing measured.
    for (let i = 0; i < idle + partial; i += 100) {
      const wave = [];
      for (let j = i; j < Math.min(i + 100, idle + partial); j++) wave.push(open(j < idle ? null : head));
      opened.push(...(await Promise.all(wave)));
    }
    const connected = opened.filter(Boolean).length;
    const started = performance.now();
    const [result] = await runHttpCases(
      url,
      [{ id: flood.id, rule: flood.rule, session: 'initialized', request: { body: { message: { jsonrpc: '2.0', id: 1, method: 'ping' } } }, expect: { status: 200, reply: { id: 1 } } }],
      vars,
    );
    const ms = Math.round(performance.now() - started);
    const held = `${connected} of ${idle} idle + ${partial} partial-header connections open${scaled ? ` (${scaled})` : ''}, ${closedByServer} closed by the server`;
    let detail = result.pass ? null : `${result.detail} (${held})`;
    // A deadline with slack for a loaded machine (the case's rule says how much), not a measurement: the
    // figure is the note's, and packages/bench/stress/connection-flood.mjs measures it.
    if (detail === null && flood.expect.withinMs !== undefined && ms > flood.expect.withinMs) detail = `served, but in ${ms} ms, past the deadline of ${flood.expect.withinMs} ms (${held})`;
    return { ...result, pass: detail === null, detail, note: `${held}; a new client's initialize + initialized + ping took ${ms} ms`, ms };
  } finally {
    for (const socket of sockets) socket.destroy();
  }
}
