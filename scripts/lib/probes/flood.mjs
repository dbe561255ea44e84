// The bounded flood (issue 39 item 6): `idle` connections that send nothing and `partialHeaders` connections
// that send half a request head are opened and held; meanwhile a new client must initialize and get a ping
// answered. Loopback only; the counts are the corpus's (small in tests) or the runner's --flood.
import { connect } from 'node:net';
import { runHttpCases } from './http.mjs';

const CONNECT_WAIT_MS = 20_000;

/** { id, rule, pass, detail, ms }: ms from the held connections' being open to the new client's answer. */
export async function runFlood(url, flood, vars, counts = {}) {
  const idle = counts.idle ?? flood.idle;
  const partial = counts.partialHeaders ?? flood.partialHeaders;
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
    const held = `${connected} of ${idle} idle + ${partial} partial-header connections open, ${closedByServer} closed by the server`;
    return { ...result, detail: result.pass ? null : `${result.detail} (${held})`, note: `${held}; a new client's initialize + initialized + ping took ${ms} ms`, ms };
  } finally {
    for (const socket of sockets) socket.destroy();
  }
}
