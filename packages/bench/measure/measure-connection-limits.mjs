// What listenNode and listenBun do with connections that cost the server without giving it work (issue 24,
// finding 6): each phase starts a fresh server (McpHttpHandler on listenNode or listenBun, in a process of
// its own, on loopback) and opens raw TCP connections against it:
//   idle       connections that send nothing
//   slowloris  a request line, then one header byte every --drip-ms, never finishing the headers
//   slow-body  whole headers with a Content-Length, then one body byte every --drip-ms
//   keep-alive one small request each (answered 404), then nothing: the connection kept alive
//   cap        --count connections each start a request whose body trickles, on a server with
//              maxConnections --cap: past the cap listenNode drops the connection, listenBun answers 503;
//              then 20 complete requests ask while the first ones are held
// For each: when the server closed them (first, median, last), what they were answered, how many were still
// open when the phase ended, and a normal client's latency (a request every 250 ms) during the phase.
//   node packages/bench/measure/measure-connection-limits.mjs [--runtime node|bun] [--phases idle,slowloris,...]
//        [--count 1000] [--seconds 90] [--drip-ms 2000] [--cap 100] [--listen JSON] [--listen-with node|bun]
// --listen-with node runs listenNode (node:http) on Bun: Bun's node:http compatibility.
// --listen passes ListenOptions (headersTimeoutMs, requestTimeoutMs, idleTimeoutMs, keepAliveTimeoutMs,
// maxConnections) to every phase's server; unset, the defaults apply. Bounded: every phase ends after
// --seconds and destroys its sockets; the server process is stopped after each phase.
// Numbers, not a test (the behaviour is tested in test/http-connection-limits.test.ts and
// test/http-bun-connection-limits.test.ts).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { bunBinary, optionOf } from './lib/media-http-driver.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => optionOf(argv, name, fallback);

/** The server side (the child): a handler with a tiny MCP server, listening until stdin ends. */
async function serve(listenOptions, listenWith) {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { listenBun, listenNode, McpHttpHandler } = await import('mcp-msgpack-transport');
  const isBun = typeof globalThis.Bun !== 'undefined';
  const handler = new McpHttpHandler({ createServer: () => new McpServer({ name: 'limits', version: '1.0.0' }) });
  const running = await ((listenWith ?? (isBun ? 'bun' : 'node')) === 'bun' ? listenBun : listenNode)(handler, listenOptions);
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) * 1024;
  const runtime = isBun ? `bun ${globalThis.Bun.version}` : `node ${process.version}`;
  process.stdout.write(`${JSON.stringify({ url: running.url.href, runtime: `${runtime}, ${running.server ? 'listenNode' : 'listenBun'}`, rss: rss() })}\n`);
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() === 'exit') break;
    process.stdout.write(`${JSON.stringify({ rss: rss() })}\n`);
  }
  await running.close();
  process.exit(0);
}

async function measure() {
  const runtime = option('runtime', 'node');
  const listenWith = option('listen-with', runtime);
  const phases = option('phases', 'idle,slowloris,slow-body,keep-alive,cap').split(',');
  const count = Number(option('count', 1000));
  const seconds = Number(option('seconds', 90));
  const dripMs = Number(option('drip-ms', 2000));
  const cap = Number(option('cap', 100));
  const listen = JSON.parse(option('listen', '{}'));
  console.log(`runtime ${runtime}; ${count} connections a phase, at most ${seconds} s each; drip every ${dripMs} ms; listen options ${JSON.stringify(listen)}`);
  for (const phase of phases) {
    const options = phase === 'cap' ? { ...listen, maxConnections: cap } : listen;
    const server = await startServer(runtime, options, listenWith);
    try {
      const result = await runPhase(phase, server, { count, seconds, dripMs });
      report(phase, server, result, options);
    } finally {
      await server.stop();
    }
  }
}

/** The child on `runtime`, with `listenOptions`; its URL, its RSS on demand, and a stop. */
async function startServer(runtime, listenOptions, listenWith) {
  const command = runtime === 'bun' ? bunBinary() : process.execPath;
  const child = spawn(command, [new URL(import.meta.url).pathname, '--serve', JSON.stringify(listenOptions), listenWith], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await lines.next()).value);
  const hello = await next();
  return {
    url: new URL(hello.url),
    runtime: hello.runtime,
    startRss: hello.rss,
    rss: async () => {
      child.stdin.write('rss\n');
      return (await next()).rss;
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.end('exit\n');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** What one raw connection saw: when it opened and closed, and the first line the server sent. */
function track(socket, started) {
  const seen = { connectedAt: undefined, closedAt: undefined, firstLine: undefined, error: undefined };
  let text = '';
  socket.on('connect', () => (seen.connectedAt = performance.now() - started));
  socket.on('data', (chunk) => {
    if (seen.firstLine !== undefined) return;
    text += chunk.toString('latin1');
    const end = text.indexOf('\r\n');
    if (end >= 0) seen.firstLine = text.slice(0, end);
  });
  socket.on('error', (error) => (seen.error = error.code ?? String(error)));
  socket.on('close', () => (seen.closedAt = performance.now() - started));
  return seen;
}

async function runPhase(phase, server, { count, seconds, dripMs }) {
  const port = Number(server.url.port);
  const host = server.url.hostname;
  const head = `POST ${server.url.pathname} HTTP/1.1\r\nHost: ${server.url.host}\r\n`;
  const started = performance.now();
  const sockets = [];
  const seen = [];
  const timers = [];
  const open = () => {
    const socket = connect(port, host);
    socket.setNoDelay(true);
    sockets.push(socket);
    seen.push(track(socket, started));
    return socket;
  };
  /** Writes `text` one byte every dripMs until it is all sent or the socket is gone. */
  const drip = (socket, text) => {
    let at = 0;
    const timer = setInterval(() => {
      if (socket.destroyed || at >= text.length) return clearInterval(timer);
      socket.write(text[at++]);
    }, dripMs);
    timers.push(timer);
  };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' });
  const slowBody = (socket) => {
    socket.write(`${head}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n`);
    drip(socket, body);
  };
  const capAsks = [];
  for (let i = 0; i < count; i++) {
    const socket = open();
    if (phase === 'slowloris') {
      socket.write(head);
      drip(socket, 'X-Slow: '.padEnd(10_000, 'x'));
    } else if (phase === 'slow-body' || phase === 'cap') slowBody(socket);
    else if (phase === 'keep-alive') socket.write(`GET /not-the-endpoint HTTP/1.1\r\nHost: ${server.url.host}\r\n\r\n`);
    // Paced a little, so that the listen backlog is not what is measured.
    if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  if (phase === 'cap') {
    // The held requests are in; these ask past the cap, one at a time, with a complete request.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (let i = 0; i < 20; i++) capAsks.push(await normalRequest(server.url));
  }
  let peakRss = server.startRss;
  const latencies = [];
  let failures = 0;
  const deadline = started + seconds * 1000;
  while (performance.now() < deadline && seen.some((s) => s.closedAt === undefined)) {
    const answer = await normalRequest(server.url);
    if (answer.status === 404) latencies.push(answer.ms);
    else failures++;
    peakRss = Math.max(peakRss, await server.rss());
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  for (const timer of timers) clearInterval(timer);
  for (const socket of sockets) socket.destroy();
  return { seen, latencies, failures, peakRss, capAsks, elapsed: performance.now() - started };
}

/** One small request on a fresh connection (GET /not-the-endpoint: 404): its status and time. */
function normalRequest(url) {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let text = '';
    const timer = setTimeout(() => socket.destroy(), 10_000);
    socket.on('connect', () => socket.write(`GET /not-the-endpoint HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`));
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, ms: performance.now() - started, retryAfter: /\r\nretry-after: *(\S+)/i.exec(text)?.[1] });
    });
  });
}

const seconds = (ms) => (ms / 1000).toFixed(1);
const percentile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];

function report(phase, server, { seen, latencies, failures, peakRss, capAsks, elapsed }, options) {
  const connected = seen.filter((s) => s.connectedAt !== undefined).length;
  const closed = seen.filter((s) => s.closedAt !== undefined).map((s) => s.closedAt);
  const answers = {};
  for (const s of seen) answers[s.firstLine ?? '(nothing)'] = (answers[s.firstLine ?? '(nothing)'] ?? 0) + 1;
  const closedText = closed.length
    ? `closed by the server at ${seconds(Math.min(...closed))} / ${seconds(percentile(closed, 0.5))} / ${seconds(Math.max(...closed))} s (first / median / last)`
    : 'none closed by the server';
  console.log(`\n${phase} (${server.runtime}, ${JSON.stringify(options)}), ran ${seconds(elapsed)} s:`);
  console.log(`  ${connected} of ${seen.length} connected; ${closed.length} ${closedText}; ${seen.length - closed.length} still open at the end`);
  console.log(
    `  answers: ${Object.entries(answers)
      .map(([line, n]) => `${n} x ${line}`)
      .join(', ')}`,
  );
  if (capAsks.length) {
    const statuses = {};
    for (const ask of capAsks) statuses[`${ask.status}${ask.retryAfter ? ` Retry-After ${ask.retryAfter}` : ''}`] = (statuses[`${ask.status}${ask.retryAfter ? ` Retry-After ${ask.retryAfter}` : ''}`] ?? 0) + 1;
    console.log(
      `  requests past the cap: ${Object.entries(statuses)
        .map(([s, n]) => `${n} x ${s}`)
        .join(', ')}`,
    );
  }
  const p = (q) => (latencies.length ? percentile(latencies, q).toFixed(1) : '-');
  console.log(
    `  normal client: ${latencies.length} answered (p50 ${p(0.5)} ms, max ${p(1)} ms), ${failures} not; server RSS ${(server.startRss / 2 ** 20).toFixed(0)} -> peak ${(peakRss / 2 ** 20).toFixed(0)} MiB`,
  );
}

if (argv[0] === '--serve') await serve(JSON.parse(argv[1]), argv[2]);
else await measure();
