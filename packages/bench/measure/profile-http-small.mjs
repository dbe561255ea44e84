// Where our HTTP server's CPU goes on small calls, per client variant: the server runs in a child process
// under --cpu-prof (Node, or Bun's own --cpu-prof) while one client makes N small calls, and the profile's self
// time is summed by function. By default compares our JSON-wire client with our per-message client (SPEC.md
// 9.6), both of which post and receive JSON on small calls, so any difference is the per-message path's own
// (Accept parameter, policy).
//   node packages/bench/measure/profile-http-small.mjs [calls=3000] [top=25] [rounds=2] [--compare json,msgpack] [--serve bun]
// --compare A,B: two of json, adaptive, msgpack (MessagePack both ways: client and server on 'smallest'), and
// defaults, stock (our client on its defaults, the stock SDK client; the server on the handler's defaults).
// --payload NAME: a payload of measure-http-server.mjs (default small). --interval US: the sampling interval (250).
// Reported: profiled microseconds per call, total and per function (self time).
// --serve bun (run under bun): the server on Bun.serve (listenBun), as measure-http.mjs --serve bun.
// Rounds alternate the two variants (A first, then B first), and shares are summed over them, so
// the machine's load drifts over both alike. Bun's profiles hold the JavaScript thread only: the collector's
// threads and Bun's native HTTP work show as the unnamed root (or not at all), so compare named rows.
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
import { PAYLOADS } from './measure-http-server.mjs';

const flag = (name) => (process.argv.includes(`--${name}`) ? process.argv[process.argv.indexOf(`--${name}`) + 1] : undefined);
const positional = process.argv.slice(2).filter((arg, i, all) => !arg.startsWith('--') && !all[i - 1]?.startsWith('--'));
const calls = Number(positional[0] ?? 3000);
const top = Number(positional[1] ?? 25);
const rounds = Number(positional[2] ?? 2);
const serve = flag('serve') ?? 'node';
const [nameA, nameB] = (flag('compare') ?? 'json,adaptive').split(',');
const payload = PAYLOADS[flag('payload') ?? 'small'];
const interval = Number(flag('interval') ?? 250);

async function profile(variant) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-prof-'));
  const child = fork(new URL('./measure-http-server.mjs', import.meta.url), ['ours', serve], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${interval}`],
    env: { ...process.env, ...(variant.serverDefaults ? {} : { MEASURE_JSON_RESPONSE: '1' }), ...(variant.serverEncoding ? { MEASURE_ENCODING: variant.serverEncoding } : {}) },
  });
  const url = await new Promise((resolve) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /listening (\S+)/.exec(out);
      if (match) resolve(new URL(match[1]));
    });
  });
  const client = new Client({ name: 'profile', version: '1.0.0' });
  await client.connect(variant.stock ? new StreamableHTTPClientTransport(url) : new HttpMsgpackClientTransport(url, variant.options));
  for (let i = 0; i < calls; i++) await client.callTool({ name: payload.tool, arguments: payload.arguments });
  await client.close();
  // A disconnect ends the server (measure-http-server.mjs), which writes its profile on exit.
  await new Promise((resolve) => (child.once('exit', resolve), child.disconnect()));
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  const prof = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  rmSync(dir, { recursive: true, force: true });
  const self = new Map();
  const counts = new Map();
  // Each sample's time is the gap to the next one (the profile's timeDeltas), in microseconds.
  for (let i = 0; i < prof.samples.length; i++) counts.set(prof.samples[i], (counts.get(prof.samples[i]) ?? 0) + (prof.timeDeltas[i + 1] ?? 0));
  let total = 0;
  for (const node of prof.nodes) {
    const n = counts.get(node.id) ?? 0;
    total += n;
    const { functionName, url: src, lineNumber } = node.callFrame;
    const key = `${functionName || '(anonymous)'} ${src.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + n);
  }
  return { total, self };
}

const known = {
  json: { name: 'json', options: { wire: 'json' } },
  adaptive: { name: 'adaptive', options: { wire: 'msgpack', encoding: 'cheapest-cpu' } },
  msgpack: { name: 'msgpack', options: { wire: 'msgpack', encoding: 'smallest' }, serverEncoding: 'smallest' },
  // Our client on its defaults, and the stock SDK client (JSON both ways), on the same default server.
  // (measure-reply-streams.mjs's 'after' server: the handler's defaults, not enableJsonResponse).
  defaults: { name: 'defaults', options: {}, serverDefaults: true },
  stock: { name: 'stock', stock: true, serverDefaults: true },
};
const variants = [known[nameA], known[nameB]];
if (variants.some((v) => v === undefined)) throw new Error(`--compare takes two of ${Object.keys(known).join(', ')}`);
const results = { [nameA]: { total: 0, self: new Map() }, [nameB]: { total: 0, self: new Map() } };
for (let r = 0; r < rounds; r++) {
  for (const variant of r % 2 === 0 ? variants : [...variants].reverse()) {
    const one = await profile(variant);
    const into = results[variant.name];
    into.total += one.total;
    for (const [key, n] of one.self) into.self.set(key, (into.self.get(key) ?? 0) + n);
  }
}
const share = (r, key) => (r.self.get(key) ?? 0) / (calls * rounds);
const keys = new Set([...results[nameA].self.keys(), ...results[nameB].self.keys()]);
const rows = [...keys].map((key) => ({ key, a: share(results[nameA], key), b: share(results[nameB], key) }));
const perCall = (r) => (r.total / (calls * rounds)).toFixed(1);
console.log(
  `${calls} ${payload.tool} calls per variant and round, ${rounds} rounds; profiled us per call: ${nameA} ${perCall(results[nameA])}, ${nameB} ${perCall(results[nameB])} (self time per function, us per call)`,
);
console.log(`largest differences (${nameB} - ${nameA}):`);
for (const row of rows.sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a)).slice(0, top)) {
  console.log(`${(row.b - row.a).toFixed(2).padStart(7)}  ${row.a.toFixed(2).padStart(6)} -> ${row.b.toFixed(2).padStart(6)}  ${row.key}`);
}
const policy = rows.filter((r) => /chooseWire|shapeOf|acceptsPerMessage|needsMsgpack|replyCodec/.test(r.key));
console.log('\nthe per-message path itself:');
for (const row of policy) console.log(`${row.a.toFixed(3).padStart(7)} -> ${row.b.toFixed(3).padStart(7)}  ${row.key}`);
