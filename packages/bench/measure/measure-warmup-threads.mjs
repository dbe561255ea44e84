// Does the benchmark's stock-client comparison on Bun read two servers at different points of their JIT
// warm-up? The benchmark's own two variants of one call scenario (our client on its defaults and the SDK's
// stock JSON client, each against a server of its own on this package's defaults, started as the benchmark
// starts them), from a cold start, in alternating rounds for as long as asked; per round, each server's CPU
// per call split into JavaScriptCore's JIT compiler threads (`JITWorker`), the main thread and the rest, so
// the ratio can be read in the first rounds (compilers busy) and in the last (compilers quiet).
//
//   bun packages/bench/measure/measure-warmup-threads.mjs [--scenario object-50KB] [--transport http|stdio] [--clients 1]
//        [--rounds 40] [--calls 800]
// Run it under the runtime to measure (servers and clients both run on it). Needs `npm run build` (it drives
// the benchmark's compiled runner). Linux only (/proc). Not a test: numbers depend on the machine. Loopback only.
import { SessionPool } from '../dist/esm/runner/pool.js';
import { measureRound } from '../dist/esm/runner/measure.js';
import { objectScenarios } from '../dist/esm/scenarios/object.js';
import { smallScenarios } from '../dist/esm/scenarios/small.js';
import { isJitThread, threadDelta, threadTimes } from './lib/thread-times.mjs';

const option = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
};
const SCENARIO = option('scenario', 'object-50KB');
const TRANSPORT = option('transport', 'http');
const CLIENTS = Number(option('clients', '1'));
const ROUNDS = Number(option('rounds', '40'));
const CALLS = Number(option('calls', '800'));

// The budget only sizes the benchmark's own rounds, which this script does not run.
const budget = { rounds: 1, roundMs: 0, warmupMs: 0, minCalls: 1, maxCalls: 1 };
const scenarios = [...smallScenarios(TRANSPORT, CLIENTS, true, budget), ...objectScenarios(true, TRANSPORT, CLIENTS, true, budget)];
const scenario = scenarios.find((s) => s.name.startsWith(`${SCENARIO}/`));
if (!scenario) throw new Error(`no scenario ${SCENARIO}/${TRANSPORT}; one of ${scenarios.map((s) => s.name).join(', ')}`);
// Over stdio our client on its defaults is the adaptive variant (both ends on their defaults).
const ids = TRANSPORT === 'stdio' ? ['adaptive', 'stock-client'] : ['defaults', 'stock-client'];
const pool = new SessionPool(process.execPath, undefined);
const sessions = [];
for (const id of ids) sessions.push(await pool.get(scenario.variants.find((v) => v.id === id)));

const runtime = typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node ${process.version}`;
console.log(`${scenario.name} on ${runtime}: ${ids.join(' / ')}, ${ROUNDS} alternating rounds of ${CALLS} calls from a cold start; server us/call\n`);
const series = ids.map(() => []);
const started = performance.now();
try {
  for (let r = 0; r < ROUNDS; r++) {
    for (const i of r % 2 === 0 ? [0, 1] : [1, 0]) {
      const session = sessions[i];
      const before = threadTimes(session.serverPid);
      const sample = await measureRound(session, CALLS, scenario.callFor?.(session.spec) ?? scenario.call);
      const part = { jit: 0, main: 0, other: 0 };
      for (const [name, ns] of threadDelta(before, threadTimes(session.serverPid))) part[isJitThread(name) ? 'jit' : name === 'main' ? 'main' : 'other'] += ns / 1000 / sample.calls;
      series[i].push(part);
    }
    const [ours, stock] = [series[0][r], series[1][r]];
    const total = (p) => p.jit + p.main + p.other;
    console.log(
      `round ${String(r + 1).padStart(3)} ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s  ` +
        `ours jit ${ours.jit.toFixed(0).padStart(4)} main ${ours.main.toFixed(0).padStart(5)} other ${ours.other.toFixed(0).padStart(4)} | ` +
        `stock jit ${stock.jit.toFixed(0).padStart(4)} main ${stock.main.toFixed(0).padStart(5)} other ${stock.other.toFixed(0).padStart(4)} | ` +
        `ours/stock ${(total(ours) / total(stock)).toFixed(2)}, without JIT ${((ours.main + ours.other) / (stock.main + stock.other)).toFixed(2)}`,
    );
  }
} finally {
  for (const session of sessions) await session.close();
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const spread = (values) => `${median(values).toFixed(2)}x (${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)})`;
console.log('');
// The first quarter (both servers compiling) against the last half (in these runs, compilers quiet).
for (const [label, from, to] of [
  ['first quarter', 0, ROUNDS >> 2],
  ['last half', ROUNDS >> 1, ROUNDS],
]) {
  const [ours, stock] = series.map((s) => s.slice(from, to));
  const ratios = (read) => ours.map((o, j) => read(o) / read(stock[j]));
  console.log(
    `${label.padEnd(13)}  JIT us/call ours ${median(ours.map((p) => p.jit)).toFixed(0)}, stock ${median(stock.map((p) => p.jit)).toFixed(0)}; ` +
      `ours/stock ${spread(ratios((p) => p.jit + p.main + p.other))}, without JIT ${spread(ratios((p) => p.main + p.other))}, main thread ${spread(ratios((p) => p.main))}`,
  );
}
process.exit(0);
