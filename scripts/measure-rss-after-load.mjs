// Where the media server's memory goes after a hostile client's attack suite and after a mixed load, and
// whether it comes back (issue 24): the server over HTTP in a process of its own
// (scripts/lib/media-http-child.mjs, McpHttpHandler as the CLI's --http sets it up), measured at start,
// right after each phase, and after an idle period, each time before and after a full GC, with the
// handler's sessions and open streams.
//   node scripts/measure-rss-after-load.mjs [--load-seconds 60] [--idle-seconds 60] [--clients 32]
//        [--runtime node|bun] [--env NAME=VALUE ...] [--no-attacks] [--no-load]
// --env passes a variable to the server only: MALLOC_ARENA_MAX=2, say. Bounded: the attack suite's cases
// each have a timeout, the load stops at its deadline, and the script stops the server at the end.
// Numbers, not a test; quote them with the command and say how loaded the machine was.
import { runAttacks } from './lib/http-attacks.mjs';
import { makeMediaLayout, mib, optionOf, startMediaChild } from './lib/media-http-driver.mjs';
import { runMixedLoad } from './lib/mixed-load.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => optionOf(argv, name, fallback);
const loadSeconds = Number(option('load-seconds', 60));
const idleSeconds = Number(option('idle-seconds', 60));
const clients = Number(option('clients', 32));
const runtime = option('runtime', 'node');
const env = Object.fromEntries(argv.flatMap((arg, i) => (arg === '--env' ? [argv[i + 1].split('=')] : [])));
const phases = { attacks: !argv.includes('--no-attacks'), load: !argv.includes('--no-load') };

const layout = makeMediaLayout();
const server = await startMediaChild({ runtime, dir: layout.root, env });
const rows = [];
async function measure(label) {
  const live = await server.stats();
  const collected = await server.gc();
  rows.push({ label, live, collected });
  console.log(`  ${label}: RSS ${mib(live.rss)} MiB (${mib(collected.rss)} after GC), heap used ${mib(collected.heapUsed)} of ${mib(collected.heapTotal)} MiB, sessions ${collected.sessions}`);
}
const idle = async (label) => {
  console.log(`idle ${idleSeconds} s`);
  await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
  await measure(label);
};

try {
  console.log(`server: ${server.runtime}, pid ${server.pid}${Object.keys(env).length ? `, env ${JSON.stringify(env)}` : ''}`);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  await measure('start');
  if (phases.attacks) {
    console.log('attack suite');
    const started = performance.now();
    const attacks = await runAttacks(server.url, layout.root, { log: (what) => console.log(`  ${what}`) });
    console.log(`  ${attacks.cases} cases in ${((performance.now() - started) / 1000).toFixed(0)} s, answers by status: ${JSON.stringify(attacks.statuses)}`);
    await measure('after the attack suite');
    await idle(`attack suite + ${idleSeconds} s idle`);
  }
  if (phases.load) {
    console.log(`mixed load: ${clients} clients, ${loadSeconds} s`);
    const load = await runMixedLoad(server.url, layout.root, { clients, seconds: loadSeconds });
    console.log(
      `  ${load.calls} calls in ${load.sessions} sessions (p50 ${load.p50.toFixed(1)} ms, p95 ${load.p95.toFixed(1)} ms), ${load.toolErrors} tool errors, ${load.failures} failed sessions${load.firstFailure ? ` (first: ${load.firstFailure})` : ''}`,
    );
    await measure('after the load');
    await idle(`load + ${idleSeconds} s idle`);
  }
} finally {
  await server.stop();
  layout.cleanup();
}

const start = rows[0];
console.log('\n| moment | RSS MiB (x start) | after full GC: RSS | heap used / total | external | arrayBuffers | V8 malloc | sessions | streams |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const { label, live, collected } of rows) {
  const x = (live.rss / start.live.rss).toFixed(2);
  console.log(
    `| ${label} | ${mib(live.rss)} (${x}x) | ${mib(collected.rss)} (${(collected.rss / start.collected.rss).toFixed(2)}x) | ${mib(collected.heapUsed)} / ${mib(collected.heapTotal)} | ${mib(collected.external)} | ${mib(collected.arrayBuffers)} | ${mib(collected.malloced)} | ${collected.sessions} | ${collected.streams} |`,
  );
}
