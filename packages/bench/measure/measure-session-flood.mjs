// One client attempts up to 100,000 sessions (initialize, then nothing) against the media server over HTTP
// (issue 24), while a normal client keeps calling a tool on a session it opened before: the server's RSS
// (sampled every second) against what its session cap allows, the flood's answers (200 under the cap, 503
// with Retry-After past it), and the normal client's latency before and during the flood.
//   node packages/bench/measure/measure-session-flood.mjs [--attempts 100000] [--seconds 120] [--concurrency 8]
//        [--runtime node|bun] [--max-sessions 1000]
// Bounded: it stops at --attempts or --seconds, whichever comes first, and stops the server it started.
// Numbers, not a test (the cap's behaviour is tested in http-session-expiry.test.ts).
import { Agent, request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { makeMediaLayout, mib, optionOf, startMediaChild } from './lib/media-http-driver.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => optionOf(argv, name, fallback);
const attempts = Number(option('attempts', 100_000));
const seconds = Number(option('seconds', 120));
const concurrency = Number(option('concurrency', 8));
const runtime = option('runtime', 'node');
const maxSessions = Number(option('max-sessions', 1000));
const QUIET_SECONDS = 5;

const layout = makeMediaLayout();
const server = await startMediaChild({ runtime, dir: layout.root, handlerOptions: { maxSessions } });
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'flood', version: '1' } } });

/** One initialize on a kept-alive connection; its status. */
function attempt() {
  return new Promise((resolve) => {
    const req = request(
      { host: server.url.hostname, port: server.url.port, path: server.url.pathname, method: 'POST', agent, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
        res.on('error', () => resolve('error'));
      },
    );
    req.setTimeout(30_000, () => req.destroy());
    req.on('error', () => resolve('error'));
    req.end(INITIALIZE);
  });
}

const percentile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? NaN;

try {
  console.log(`server: ${server.runtime}, maxSessions ${maxSessions}; flood: up to ${attempts} attempts in ${seconds} s, ${concurrency} at a time`);
  const transport = new HttpMsgpackClientTransport(server.url, { wire: 'msgpack' });
  const client = new Client({ name: 'normal', version: '1.0.0' });
  await client.connect(transport);
  let phase = 'quiet';
  const latencies = { quiet: [], flood: [] };
  let normalFailures = 0;
  let calling = true;
  const normal = (async () => {
    while (calling) {
      const started = performance.now();
      try {
        await client.callTool({ name: 'read_text_file', arguments: { path: `${layout.root}/small.txt` } }, undefined, { timeout: 30_000 });
        latencies[phase].push(performance.now() - started);
      } catch {
        normalFailures++;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();

  await new Promise((resolve) => setTimeout(resolve, QUIET_SECONDS * 1000));
  const start = await server.gc();
  phase = 'flood';
  const answers = new Map();
  let made = 0;
  let peak = start;
  const sampler = setInterval(async () => {
    const stats = await server.stats().catch(() => undefined);
    if (stats && stats.rss > peak.rss) peak = stats;
  }, 1_000);
  const deadline = performance.now() + seconds * 1000;
  const floodStart = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (made < attempts && performance.now() < deadline) {
        made++;
        const status = await attempt();
        answers.set(status, (answers.get(status) ?? 0) + 1);
      }
    }),
  );
  const floodSeconds = (performance.now() - floodStart) / 1000;
  clearInterval(sampler);
  const end = await server.stats();
  // The same sessions, garbage aside: what an open session costs (the flood's expired sessions are garbage until a GC).
  const collected = await server.gc();
  calling = false;
  await normal;
  await transport.terminateSession().catch(() => {});
  await client.close();

  console.log(`${made} attempts in ${floodSeconds.toFixed(0)} s (${(made / floodSeconds).toFixed(0)}/s): ${JSON.stringify(Object.fromEntries(answers))}`);
  console.log(`server RSS: ${mib(start.rss)} MiB before (after GC), peak ${mib(peak.rss)} MiB with ${peak.sessions} sessions, ${mib(end.rss)} MiB at the end with ${end.sessions} sessions`);
  console.log(
    `  peak growth ${mib(peak.rss - start.rss)} MiB for at most ${maxSessions} open sessions; after a full GC ${mib(collected.rss)} MiB with ${collected.sessions} sessions: ` +
      `${((collected.rss - start.rss) / collected.sessions / 1024).toFixed(0)} KiB of RSS and ${((collected.heapUsed - start.heapUsed) / collected.sessions / 1024).toFixed(0)} KiB of heap each`,
  );
  console.log(
    `normal client (an open session, read_text_file every 20 ms): p50 ${percentile(latencies.quiet, 0.5).toFixed(1)} ms before the flood (${latencies.quiet.length} calls), ` +
      `p50 ${percentile(latencies.flood, 0.5).toFixed(1)} ms / p95 ${percentile(latencies.flood, 0.95).toFixed(1)} ms during it (${latencies.flood.length} calls), ${normalFailures} failed`,
  );
} finally {
  agent.destroy();
  await server.stop();
  layout.cleanup();
}
