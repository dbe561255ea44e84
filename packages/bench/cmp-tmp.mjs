// Alternating CPU-per-call comparison: ours JSON vs stock, review_context 1MB over HTTP.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HttpMsgpackClientTransport } from 'mcp-msgpack-transport';
const ENTRY = '/work/main/packages/bench/dist/esm/servers/entry.js';
const rounds = Number(process.env.ROUNDS ?? 6), calls = Number(process.env.CALLS ?? 20), bytes = Number(process.env.BYTES ?? 1_000_000);
const extra = process.env.NODE_ARGS ? process.env.NODE_ARGS.split(' ') : [];
function cpu(pid) { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; }
async function start(stack, wire) {
  const child = spawn('node', [...extra, ENTRY, '--transport', 'http', '--stack', stack], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((res) => child.stdout.on('data', (d) => { const m = /BENCH_READY (\d+)/.exec(String(d)); if (m) res(Number(m[1])); }));
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(stack === 'stock' ? new StreamableHTTPClientTransport(url) : new HttpMsgpackClientTransport(url, { wire }));
  return { child, client, name: `${stack}-${wire}` };
}
const vs = [await start('stock', 'json'), await start('ours', 'json'), await start('ours', 'msgpack')];
const fixed = await (async () => { process.env.SDK_FIX = '1'; const v = await start('stock', 'json'); delete process.env.SDK_FIX; v.name = 'stock-fixed'; return v; })(); vs.push(fixed);
for (const v of vs) for (let i = 0; i < 5; i++) await v.client.callTool({ name: 'review_context', arguments: { bytes } });
const res = Object.fromEntries(vs.map((v) => [v.name, []]));
for (let r = 0; r < rounds; r++) {
  for (const v of (r % 2 ? [...vs].reverse() : vs)) {
    const c0 = cpu(v.child.pid);
    for (let i = 0; i < calls; i++) await v.client.callTool({ name: 'review_context', arguments: { bytes } });
    res[v.name].push((cpu(v.child.pid) - c0) / calls); if (v.name.startsWith('stock') || v.name === 'ours-json') console.log(r, v.name, 'rss MiB', (Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${v.child.pid}/status`, 'utf8'))[1]) / 1024).toFixed(0));
  }
}
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
for (const [k, a] of Object.entries(res)) console.log(k.padEnd(14), 'median ms/call', med(a).toFixed(2), a.map((x) => x.toFixed(1)).join(' '));
const s = res['stock-json'];
console.log('ours-json/stock-fixed per round', res['ours-json'].map((x, i) => (x / res['stock-fixed'][i]).toFixed(2)).join(' '));
console.log('ours-json/stock per round', res['ours-json'].map((x, i) => (x / s[i]).toFixed(2)).join(' '));
for (const v of vs) { await v.client.close(); v.child.kill('SIGTERM'); }
