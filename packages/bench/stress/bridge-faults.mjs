// The bridge's reverse mode (`mcp-msgpack-bridge --serve`) under faults: a child that stops reading its stdin
// while a client posts 100 MiB (one session, and 16 with the total queue at its default and lifted), a GET
// stream never read while the child floods it, sessions churning against --max-sessions, and SIGTERM with
// children that ignore it. Figures are the bridge's peak RSS growth (the bench's RSS reader sampled every
// 20 ms), counts of HTTP statuses and of processes (Linux).
//   node packages/bench/stress/bridge-faults.mjs [--only stalled-child,stalled-children,unread-get,churn,sigterm]
//        [--bridge-runtime PATH]   (the runtime the bridge runs on, e.g. node_modules/bun/bin/bun.exe; default: this one)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readRss } from 'mcp-msgpack-bench';

const CHILD_SOURCE = `
const { createInterface } = require('node:readline');
const { spawn } = require('node:child_process');
if (process.argv.includes('--stubborn')) { process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); }
const write = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
const text = (id, t) => write({ id, result: { content: [{ type: 'text', text: t }] } });
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined || m.method === undefined) return;
  if (m.method === 'initialize') return write({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'faults', version: '1' } } });
  const name = m.params && m.params.name, args = (m.params && m.params.arguments) || {};
  if (name === 'stall') { text(m.id, 'stalled'); lines.pause(); process.stdin.pause(); setInterval(() => {}, 1000); return; }
  if (name === 'grandchild') { spawn('sleep', ['300'], { stdio: 'ignore' }); return text(m.id, String(process.pid)); }
  if (name === 'flood') {
    const data = 'x'.repeat(args.size); let sent = 0;
    const more = () => { while (sent < args.count) { sent++; if (!process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data } }) + '\\n')) return void process.stdout.once('drain', more); } text(m.id, 'flooded'); };
    return more();
  }
  write({ id: m.id, result: {} });
});
`;

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const MiB = 1024 * 1024;

export async function measureFaults({ dir, bridgeBin, runtime, only }) {
  const child = join(dir, 'faults-child.cjs');
  writeFileSync(child, CHILD_SOURCE);
  console.log(`\nreverse mode under faults; the bridge on ${runtime}; clients on Node ${process.version}\n`);
  console.log('| fault | what the bridge did | bridge peak RSS growth |');
  console.log('|---|---|---|');
  const faults = { 'stalled-child': stalledChild, 'stalled-children': stalledChildren, 'unread-get': unreadGetStream, churn, sigterm };
  for (const [name, measure] of Object.entries(faults)) if (!only || only.split(',').includes(name)) await measure(bridgeBin, runtime, child);
}

async function stalledChild(bridgeBin, runtime, child) {
  const bridge = await startBridge(runtime, bridgeBin, [], [child]);
  try {
    const session = await openSession(bridge.url);
    await session.call('stall');
    const peak = watchRss(bridge.pid);
    const statuses = { 202: 0, 503: 0, other: 0 };
    const body = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'y'.repeat(MiB) } };
    for (let i = 0; i < 100; i++) {
      const response = await session.post(body);
      await response.text();
      statuses[response.status in statuses ? response.status : 'other']++;
    }
    const growth = peak.stop();
    console.log(`| a child that stops reading stdin; 100 POSTs of 1 MiB (100 MiB) | ${statuses[202]} x 202, ${statuses[503]} x 503 + Retry-After, ${statuses.other} other | ${(growth / MiB).toFixed(1)} MiB |`);
  } finally {
    await bridge.stop();
  }
}

/**
 * 16 sessions, each with a child that stops reading, and 100 POSTs of 1 MiB spread over them in turn: with the
 * default total (--max-total-queue-bytes) and, in the same run, with the total lifted past what 16 sessions'
 * own queues can hold (as before the total existed).
 */
async function stalledChildren(bridgeBin, runtime, child) {
  for (const [label, options] of [
    ['default total', []],
    ['total lifted (1 GiB)', ['--max-total-queue-bytes', String(1024 * MiB)]],
  ]) {
    const bridge = await startBridge(runtime, bridgeBin, ['--max-sessions', '16', ...options], [child]);
    try {
      const sessions = [];
      for (let i = 0; i < 16; i++) sessions.push(await openSession(bridge.url));
      for (const session of sessions) await session.call('stall');
      const peak = watchRss(bridge.pid);
      const statuses = { 202: 0, 503: 0, other: 0 };
      const body = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'y'.repeat(MiB) } };
      for (let i = 0; i < 100; i++) {
        const response = await sessions[i % sessions.length].post(body);
        await response.text();
        statuses[response.status in statuses ? response.status : 'other']++;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      const growth = peak.stop();
      console.log(
        `| 16 sessions, each child stopped reading stdin; 100 POSTs of 1 MiB (100 MiB) over them, ${label} | ${statuses[202]} x 202, ${statuses[503]} x 503 + Retry-After, ${statuses.other} other | ${(growth / MiB).toFixed(1)} MiB |`,
      );
    } finally {
      await bridge.stop();
    }
  }
}

async function unreadGetStream(bridgeBin, runtime, child) {
  const bridge = await startBridge(runtime, bridgeBin, [], [child]);
  try {
    const session = await openSession(bridge.url);
    const get = request(bridge.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': session.id, 'mcp-protocol-version': '2025-06-18' } });
    await new Promise((resolve) => get.on('response', (res) => (res.pause(), resolve())).end());
    const peak = watchRss(bridge.pid);
    const flood = session.call('flood', { count: 6400, size: 64 * 1024 });
    // The bridge holds what it may, then stops reading the child (which waits), or drops and counts.
    for (let waited = 0; waited < 20_000 && !/not reading its GET stream/.test(bridge.stderr()); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const whileUnread = peak.now();
    const paused = /output is not read until it does/.test(bridge.stderr());
    // The client goes away: the child is read again, and what no longer fits is dropped and counted.
    get.destroy();
    await flood;
    const growth = peak.stop();
    const what = paused
      ? 'held 8 MiB, then stopped reading the child until the client went (3 s); the rest dropped, counted on stderr'
      : /dropped/.test(bridge.stderr())
        ? 'held 8 MiB, dropped the rest (said on stderr)'
        : 'no hold said';
    console.log(
      `| a GET stream never read; the child sends 6,400 notifications of 64 KiB (400 MiB) | ${what} | ${(whileUnread / MiB).toFixed(1)} MiB while unread; ${(growth / MiB).toFixed(1)} MiB to the flood's end |`,
    );
  } finally {
    await bridge.stop();
  }
}

async function churn(bridgeBin, runtime, child) {
  const cap = 4;
  const bridge = await startBridge(runtime, bridgeBin, ['--max-sessions', String(cap)], [child]);
  let most = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      most = Math.max(most, childrenOf(bridge.pid).length);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  const peak = watchRss(bridge.pid);
  let served = 0;
  let refused = 0;
  try {
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = 0; i < 10; i++) {
          try {
            const session = await openSession(bridge.url);
            served++;
            await fetch(bridge.url, { method: 'DELETE', headers: { 'mcp-session-id': session.id } }).then((r) => r.text());
          } catch {
            refused++;
          }
        }
      }),
    );
  } finally {
    sampling = false;
    await sampler;
    const growth = peak.stop();
    await bridge.stop();
    console.log(`| 16 clients opening and ending 160 sessions against --max-sessions ${cap} | ${served} served, ${refused} refused (503); at most ${most} children at once | ${(growth / MiB).toFixed(1)} MiB |`);
  }
}

async function sigterm(bridgeBin, runtime, child) {
  const bridge = await startBridge(runtime, bridgeBin, [], [child, '--stubborn']);
  const pids = [];
  for (let i = 0; i < 5; i++) {
    const session = await openSession(bridge.url);
    pids.push(Number(await session.call('grandchild')));
  }
  for (const pid of [...pids]) pids.push(...childrenOf(pid));
  const started = performance.now();
  process.kill(bridge.pid, 'SIGTERM');
  await bridge.exited;
  const exitMs = performance.now() - started;
  // A process killed last may take a moment to go on a loaded machine: up to 5 s, zombies not counted.
  let left = pids.filter(alive);
  for (let waited = 0; left.length > 0 && waited < 5000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = pids.filter(alive);
  }
  const goneMs = performance.now() - started;
  console.log(
    `| SIGTERM to the bridge; 5 children ignoring SIGTERM and stdin's end, each with a grandchild | bridge exited in ${exitMs.toFixed(0)} ms; ${left.length} of ${pids.length} processes left after ${goneMs.toFixed(0)} ms | - |`,
  );
  for (const pid of left) process.kill(pid, 'SIGKILL');
}

async function openSession(url) {
  const init = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'faults', version: '1' } } }),
  });
  await init.text();
  const id = init.headers.get('mcp-session-id');
  if (!init.ok || !id) throw new Error(`initialize: HTTP ${init.status}`);
  const headers = { ...HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
  const post = (message) => fetch(url, { method: 'POST', headers, body: JSON.stringify(message) });
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
  let next = 1;
  const call = async (name, args = {}) => {
    const text = await (await post({ jsonrpc: '2.0', id: next++, method: 'tools/call', params: { name, arguments: args } })).text();
    const match = /"text":"([^"]*)"/.exec(text);
    if (!match) throw new Error(`${name}: ${text.slice(0, 200)}`);
    return match[1];
  };
  return { id, post, call };
}

function watchRss(pid) {
  const rss = () => readRss(pid)?.rss ?? 0;
  const before = rss();
  let peak = before;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rss());
    } catch {}
  }, 20);
  return {
    /** The peak growth so far, sampling on. */
    now: () => peak - before,
    stop: () => {
      clearInterval(timer);
      try {
        peak = Math.max(peak, rss());
      } catch {}
      return peak - before;
    },
  };
}

function childrenOf(pid) {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) === pid && state !== 'Z') found.push(Number(entry));
    } catch {}
  }
  return found;
}

function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function startBridge(runtime, bridgeBin, options, childArgs) {
  return new Promise((resolve, reject) => {
    const bridge = spawn(runtime, [bridgeBin, '--serve', ...options, '--', process.execPath, ...childArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const exited = new Promise((done) => bridge.once('exit', done));
    bridge.stderr.on('data', (chunk) => (err += chunk));
    bridge.stdout.on('data', (chunk) => {
      out += chunk;
      if (!out.includes('\n')) return;
      resolve({
        pid: bridge.pid,
        url: new URL(out.split('\n')[0].trim()),
        stderr: () => err,
        exited,
        stop: async () => {
          bridge.kill('SIGTERM');
          await exited;
        },
      });
    });
    bridge.once('exit', (code) => reject(new Error(`the bridge exited (${code}): ${err}`)));
  });
}

/** The bridge's command (its package's bin). */
export function bridgeBin() {
  const manifest = createRequire(import.meta.url).resolve('mcp-msgpack-bridge/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8'));
  return join(dirname(manifest), typeof bin === 'string' ? bin : Object.values(bin)[0]);
}

/** The faults (all, or `only`: a comma-separated list) on a bridge run by `runtime`, in a temp folder. */
export async function runBridgeFaults({ runtime = process.execPath, only } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bridge-faults-'));
  try {
    await measureFaults({ dir, bridgeBin: bridgeBin(), runtime, only });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Run as a command (run.mjs imports runBridgeFaults instead).
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { only: { type: 'string' }, 'bridge-runtime': { type: 'string' } } });
  await runBridgeFaults({ runtime: values['bridge-runtime'], only: values.only });
}
