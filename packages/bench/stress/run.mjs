// The stress drivers in one bounded run, so that they cannot rot (the bench's test suite runs it with
// --quick): hostile payloads against the media server over stdio and HTTP (amplification.mjs), then one
// server over HTTP through the hostile client's suite (http-attacks.mjs) and a mixed load of sessions
// (mixed-load.mjs), its memory read from outside at each step, before and after a full GC; then the bridge's
// reverse mode under faults (bridge-faults.mjs).
//   node|bun packages/bench/stress/run.mjs [--quick] [--clients N] [--load-seconds S]
// It fails (exit 1) when the server stops answering: a refused payload must leave it serving. Loopback only;
// every case has a timeout, the load stops at its deadline. Numbers, not a benchmark: ratios of memory to
// payload, not times, are what it reports.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { measureAmplification } from './amplification.mjs';
import { runBridgeFaults } from './bridge-faults.mjs';
import { runAttacks } from './http-attacks.mjs';
import { makeMediaLayout, mib, startMediaServer } from './media-driver.mjs';
import { runMixedLoad, runWarmUp } from './mixed-load.mjs';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, clients: { type: 'string' }, 'load-seconds': { type: 'string' } } });
const quick = values.quick;
const runtime = typeof globalThis.Bun !== 'undefined' ? 'bun' : 'node';
const problems = [];
console.log(`stress (${quick ? 'quick' : 'full'}), ${runtime} ${runtime === 'bun' ? globalThis.Bun.version : process.version}, load average ${loadavg()[0].toFixed(1)}`);

// Hostile payloads: what each costs the server against its size, and the server still answers after it.
for (const http of [false, true]) {
  console.log(`\nhostile payloads over ${http ? 'HTTP' : 'stdio'}`);
  const shapes = quick ? ['map1', 'keyorders', 'filler'] : ['emptymap', 'emptyarr', 'map1', 'str2', 'nil', 'uniqmap', 'keyorders', 'mixed-edge', 'filler'];
  const rows = await measureAmplification({ http, sizes: [quick ? 1 : 4], shapes, log: (line) => console.log(`  ${line}`) });
  for (const row of rows) if (!row.pinged) problems.push(`${row.shape} over ${http ? 'HTTP' : 'stdio'}: the next ping was not answered`);
}

// The attack suite and the mixed load against one server; its memory at each step.
const layout = makeMediaLayout();
const server = await startMediaServer({ runtime, dir: layout.root });
const moments = [];
const measure = async (label) => {
  const live = await server.stats();
  const collected = await server.collected();
  moments.push({ label, live, collected });
  console.log(`  ${label}: RSS ${mib(live.rss)} MiB (${mib(collected.rss)} after GC), sessions ${collected.sessions}, open streams ${collected.streams}`);
};
try {
  console.log(`\nthe media server over HTTP (${server.runtime}, pid ${server.pid})`);
  const warm = await runWarmUp(server.url, layout.root);
  console.log(`  warm-up: ${warm.calls} calls in ${warm.sessions} sessions, ${warm.toolErrors} tool errors`);
  await measure('warmed up');
  const started = performance.now();
  const attacks = await runAttacks(server.url, layout.root, { sessionFlood: quick ? 50 : 1_100, idleConnections: quick ? 20 : 500, forgedResumes: quick ? 2 : 10 });
  console.log(`  attack suite: ${attacks.cases} cases in ${((performance.now() - started) / 1000).toFixed(0)} s, answers by status ${JSON.stringify(attacks.statuses)}`);
  await measure('after the attack suite');
  const clients = Number(values.clients ?? (quick ? 2 : 32));
  const seconds = Number(values['load-seconds'] ?? (quick ? 3 : 60));
  const cpuBefore = (await server.stats()).cpuMs;
  const load = await runMixedLoad(server.url, layout.root, { clients, seconds });
  const cpuPerCall = ((await server.stats()).cpuMs - cpuBefore) / load.calls;
  console.log(
    `  mixed load, ${clients} clients for ${seconds} s: ${load.calls} calls in ${load.sessions} sessions, p50 ${load.p50.toFixed(1)} ms, p95 ${load.p95.toFixed(1)} ms, server CPU ${cpuPerCall.toFixed(2)} ms a call, ${load.toolErrors} tool errors, ${load.failures} failed sessions${load.firstFailure ? ` (first: ${load.firstFailure})` : ''}`,
  );
  if (load.calls === 0) problems.push('the mixed load made no call');
  await measure('after the load');
  // The server still serves a client after all of it.
  const after = await runWarmUp(server.url, layout.root);
  if (after.calls === 0) problems.push('no call answered after the attack suite and the load');
  const [warmed, ...rest] = moments;
  console.log(`\n  RSS after GC against the warmed-up server: ${rest.map((m) => `${m.label} ${(m.collected.rss / warmed.collected.rss).toFixed(2)}x`).join(', ')}`);
} catch (error) {
  problems.push(`the server run failed: ${error?.message ?? error}`);
} finally {
  await server.stop();
  layout.cleanup();
}

// The bridge's reverse mode under faults (quick: a stalled child, churn against --max-sessions, SIGTERM).
try {
  await runBridgeFaults({ only: quick ? 'stalled-child,churn,sigterm' : undefined });
} catch (error) {
  problems.push(`the bridge faults failed: ${error?.message ?? error}`);
}

if (problems.length > 0) {
  console.log(`\nFAILED:\n${problems.map((p) => `- ${p}`).join('\n')}`);
  process.exit(1);
}
console.log('\nthe server kept serving through every stress case');
