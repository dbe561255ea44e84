// Where our HTTP server's CPU goes on small calls, per client variant: the server runs in a child process
// under --cpu-prof (Node) while one client makes N small calls, and the profile's self time is summed by
// function. Compares our JSON-wire client with our per-message client (SPEC.md 9.6), both of which post and
// receive JSON on small calls, so any difference is the per-message path's own (Accept parameter, policy).
//   node packages/bench/measure/profile-http-small.mjs [calls=3000] [top=25] [rounds=2]
// Rounds alternate the two variants (json first, then adaptive first), and shares are summed over them, so
// the machine's load drifts over both alike.
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';

const calls = Number(process.argv[2] ?? 3000);
const top = Number(process.argv[3] ?? 25);
const rounds = Number(process.argv[4] ?? 2);

async function profile(variant) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-prof-'));
  const child = fork(new URL('./measure-http-server.mjs', import.meta.url), ['ours'], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
    env: { ...process.env, MEASURE_JSON_RESPONSE: '1' },
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
  await client.connect(new HttpMsgpackClientTransport(url, variant.options));
  for (let i = 0; i < calls; i++) await client.callTool({ name: 'small', arguments: { text: 'hello' } });
  await client.close();
  // A disconnect ends the server (measure-http-server.mjs), which writes its profile on exit.
  await new Promise((resolve) => (child.once('exit', resolve), child.disconnect()));
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  const prof = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  rmSync(dir, { recursive: true, force: true });
  const self = new Map();
  const counts = new Map();
  for (const sample of prof.samples) counts.set(sample, (counts.get(sample) ?? 0) + 1);
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

const variants = [
  { name: 'json', options: { wire: 'json' } },
  { name: 'adaptive', options: { wire: 'msgpack', encoding: 'cheapest-cpu' } },
];
const results = { json: { total: 0, self: new Map() }, adaptive: { total: 0, self: new Map() } };
for (let r = 0; r < rounds; r++) {
  for (const variant of r % 2 === 0 ? variants : [...variants].reverse()) {
    const one = await profile(variant);
    const into = results[variant.name];
    into.total += one.total;
    for (const [key, n] of one.self) into.self.set(key, (into.self.get(key) ?? 0) + n);
  }
}
const share = (r, key) => ((r.self.get(key) ?? 0) / r.total) * 100;
const keys = new Set([...results.json.self.keys(), ...results.adaptive.self.keys()]);
const rows = [...keys].map((key) => ({ key, json: share(results.json, key), adaptive: share(results.adaptive, key) }));
console.log(`${calls} small calls per variant and round, ${rounds} rounds; samples: json ${results.json.total}, adaptive ${results.adaptive.total} (self time, % of the server's samples)`);
console.log('largest differences (adaptive - json):');
for (const row of rows.sort((a, b) => Math.abs(b.adaptive - b.json) - Math.abs(a.adaptive - a.json)).slice(0, top)) {
  console.log(`${(row.adaptive - row.json).toFixed(2).padStart(7)}  ${row.json.toFixed(2).padStart(6)} -> ${row.adaptive.toFixed(2).padStart(6)}  ${row.key}`);
}
const policy = rows.filter((r) => /chooseWire|shapeOf|acceptsPerMessage|needsMsgpack|replyCodec/.test(r.key));
console.log('\nthe per-message path itself:');
for (const row of policy) console.log(`${row.json.toFixed(3).padStart(7)} -> ${row.adaptive.toFixed(3).padStart(7)}  ${row.key}`);
