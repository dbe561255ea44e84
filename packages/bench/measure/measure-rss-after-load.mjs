// Where the media server's memory goes after a hostile client's attack suite and after a mixed load, and
// whether it comes back (issue 24): the server over HTTP in a process of its own
// (packages/bench/measure/lib/media-http-child.mjs, McpHttpHandler as the CLI's --http sets it up), measured at start,
// right after each phase, and after an idle period, each time before and after a full GC, with the
// handler's sessions and open streams, and where the resident bytes are after the GC (V8's heap spaces,
// glibc's arenas, other anonymous mappings: see 'maps' in packages/bench/measure/lib/media-http-child.mjs).
//   node packages/bench/measure/measure-rss-after-load.mjs [--load-seconds 60] [--idle-seconds 60] [--clients 32]
//        [--runtime node|bun] [--env NAME=VALUE ...] [--handler-options JSON] [--no-attacks] [--no-load]
//        [--malloc-trim-check] [--idle-collection cli|gc-only]
// Two baselines: `start` (2 s after boot) and `warmed up` (after one session on each wire made every call
// of the load's mix once: compiled code and modules loaded on first use, which a server that has served
// anything has); ratios are given against both. --env passes a variable to the server only
// (MALLOC_ARENA_MAX=2, say); --handler-options goes to McpHttpHandler ('{"idleRelease":false}' measures
// without the CLI's idle release); --idle-collection gc-only (Bun) leaves Bun.shrink() out of it. The CLI's
// glibc malloc settings (its re-execution on Node >= 22.15) are not applied by the child: --env
// MALLOC_MMAP_THRESHOLD_=16384 --env MALLOC_TRIM_THRESHOLD_=65536 --env MALLOC_ARENA_MAX=2 measures them.
// --malloc-trim-check is a
// diagnostic: at the end it has gdb call malloc_trim(0) in the server and measures again, which tells how
// much of the RSS left is heap glibc has freed but kept (needs gdb and ptrace rights; never a policy).
// Bounded: the attack suite's cases each have a timeout, the load stops at its deadline, gdb has a
// timeout, and the script stops the server at the end. Numbers, not a test; quote them with the command
// and say how loaded the machine was (the script prints the load average).
import { runAttacks } from './lib/http-attacks.mjs';
import { makeMediaLayout, mib, optionOf, startMediaChild } from './lib/media-http-driver.mjs';
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { runMixedLoad, runWarmUp } from './lib/mixed-load.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => optionOf(argv, name, fallback);
const loadSeconds = Number(option('load-seconds', 60));
const idleSeconds = Number(option('idle-seconds', 60));
const clients = Number(option('clients', 32));
const runtime = option('runtime', 'node');
const env = Object.fromEntries(argv.flatMap((arg, i) => (arg === '--env' ? [argv[i + 1].split('=')] : [])));
const handlerOptions = JSON.parse(option('handler-options', '{}'));
const phases = { attacks: !argv.includes('--no-attacks'), load: !argv.includes('--no-load') };
const trimCheck = argv.includes('--malloc-trim-check');
const GDB_TIMEOUT_MS = 60_000;
// Past the buffers' idle release (10 s: the media pool's, the encoders') and the handler's (15 s, with its
// collection in the CLI's setup), so that the warm baseline holds
// what serving leaves for good, not the last call's buffers.
const WARM_SETTLE_MS = 20_000;

const layout = makeMediaLayout();
const server = await startMediaChild({ runtime, dir: layout.root, env, handlerOptions, idleCollection: option('idle-collection', undefined) });
const rows = [];
async function measure(label) {
  const live = await server.stats();
  const collected = await server.gc();
  const maps = await server.maps();
  rows.push({ label, live, collected, maps });
  console.log(`  ${label}: RSS ${mib(live.rss)} MiB (${mib(collected.rss)} after GC), heap used ${mib(collected.heapUsed)} of ${mib(collected.heapTotal)} MiB, sessions ${collected.sessions}`);
  console.log(`    after GC: ${describeMaps(maps)}`);
}

/** Where the resident bytes are: mappings by kind, V8's heap, and its spaces (committed/used) in MiB. */
function describeMaps(maps) {
  const { spaces, v8Physical, v8Committed, ...kinds } = maps;
  const parts = Object.entries(kinds)
    .sort(([, a], [, b]) => b - a)
    .map(([kind, bytes]) => `${kind} ${mib(bytes)}`);
  const spaceParts = Object.entries(spaces ?? {}).map(([name, space]) => `${name.replace(/_space$/, '')} ${mib(space.size)}/${mib(space.used)}`);
  if (v8Physical === undefined) return parts.join(', ');
  return `${parts.join(', ')}; V8 heap ${mib(v8Physical)} resident of ${mib(v8Committed)} committed${spaceParts.length ? ` (space committed/used: ${spaceParts.join(', ')})` : ''}`;
}

/** Diagnostic only: gdb calls malloc_trim(0) in the server; what it frees is heap glibc had kept. */
function mallocTrim(pid) {
  const run = spawnSync('gdb', ['-p', String(pid), '-batch', '-ex', 'call (int)malloc_trim(0)'], { encoding: 'utf8', timeout: GDB_TIMEOUT_MS });
  if (run.error || run.status !== 0) return `gdb failed: ${run.error?.message ?? run.stderr.trim().split('\n').at(-1)}`;
  return /\$1 = (\d+)/.exec(run.stdout)?.[1] === '1' ? 'memory returned' : 'nothing returned';
}
const idle = async (label) => {
  console.log(`idle ${idleSeconds} s`);
  await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
  await measure(label);
};

try {
  console.log(`server: ${server.runtime}, pid ${server.pid}${Object.keys(env).length ? `, env ${JSON.stringify(env)}` : ''}`);
  console.log(
    `load average at start: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  await measure('start');
  const warm = await runWarmUp(server.url, layout.root);
  console.log(`warm-up: ${warm.calls} calls in ${warm.sessions} sessions, ${warm.toolErrors} tool errors; settling ${WARM_SETTLE_MS / 1000} s`);
  await new Promise((resolve) => setTimeout(resolve, WARM_SETTLE_MS));
  await measure('warmed up');
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
    const cpuBefore = (await server.stats()).cpuMs;
    const load = await runMixedLoad(server.url, layout.root, { clients, seconds: loadSeconds });
    const cpuPerCall = ((await server.stats()).cpuMs - cpuBefore) / load.calls;
    console.log(
      `  ${load.calls} calls in ${load.sessions} sessions (p50 ${load.p50.toFixed(1)} ms, p95 ${load.p95.toFixed(1)} ms, server CPU ${cpuPerCall.toFixed(2)} ms a call), ${load.toolErrors} tool errors, ${load.failures} failed sessions${load.firstFailure ? ` (first: ${load.firstFailure})` : ''}`,
    );
    await measure('after the load');
    await idle(`load + ${idleSeconds} s idle`);
  }
  if (trimCheck) {
    console.log(`malloc_trim(0) by gdb (diagnostic): ${mallocTrim(server.pid)}`);
    await measure('then malloc_trim(0)');
  }
  console.log(
    `load average at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
} finally {
  await server.stop();
  layout.cleanup();
}

const [start, warmed] = rows;
const ratios = (bytes, of) => `${(bytes / start[of].rss).toFixed(2)}x / ${(bytes / warmed[of].rss).toFixed(2)}x`;
console.log('\nRatios: x start (2 s after boot) / x warmed up (after the warm-up).');
console.log(
  '| moment | RSS MiB (x start / x warmed) | after full GC: RSS (x start / x warmed) | heap used / total | external | arrayBuffers | V8 malloc | [heap] | malloc arenas | other anonymous | sessions | streams |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const { label, live, collected, maps } of rows) {
  console.log(
    `| ${label} | ${mib(live.rss)} (${ratios(live.rss, 'live')}) | ${mib(collected.rss)} (${ratios(collected.rss, 'collected')}) | ${mib(collected.heapUsed)} / ${mib(collected.heapTotal)} | ${mib(collected.external)} | ${mib(collected.arrayBuffers)} | ${mib(collected.malloced)} | ${mib(maps['[heap]'] ?? 0)} | ${mib(maps['malloc arenas'] ?? 0)} | ${mib(maps.anonymous ?? 0)} | ${collected.sessions} | ${collected.streams} |`,
  );
}
