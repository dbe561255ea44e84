// What the stdio wire upgrade (SPEC.md 7.1) costs a MessagePack peer: our stdio client on 'auto' (JSON first,
// offer, switch after the initialize answer) against 'msgpack' (frames from the first byte), each starting a
// fresh child server of ours and timing to the first tool call's result. The two alternate in rounds and the
// median of the per-round ratios is reported, with each side's median.
//   node packages/bench/measure/measure-upgrade.mjs [rounds]      (default 40; needs `npm run build`)
// With --serve the script is the child: an McpServer with one tool on our stdio server transport.
import { spawn as nodeSpawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(import.meta.url);

async function serve() {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { z } = await import('zod');
  const { StdioMsgpackServerTransport } = await import('mcp-msgpack-transport');
  const server = new McpServer({ name: 'measure-upgrade', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  await server.connect(new StdioMsgpackServerTransport());
  // The parent times the handshake from here: the client's first bytes already wait in the pipe.
  process.stderr.write('ready\n');
}

/**
 * One connection on `wire`: times from connect() to the first result (`total`), and from the moment the
 * child's server is connected to it (`afterReady`: the handshake and the call, without process start-up),
 * and counts the bytes each way.
 */
async function once(wire, Client, StdioMsgpackClientTransport) {
  let ready = 0;
  let sent = 0;
  let received = 0;
  const spawn = (command, args, options) => {
    const child = nodeSpawn(command, args, options);
    child.stderr.on('data', (chunk) => {
      if (!ready && chunk.includes('ready')) ready = performance.now();
    });
    child.stdout.on('data', (chunk) => (received += chunk.length));
    const write = child.stdin.write.bind(child.stdin);
    child.stdin.write = (chunk, ...rest) => {
      sent += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      return write(chunk, ...rest);
    };
    return child;
  };
  const transport = new StdioMsgpackClientTransport({ command: process.execPath, args: [SCRIPT, '--serve'], wire, spawn, stderr: 'pipe' });
  const client = new Client({ name: 'measure-upgrade', version: '1.0.0' });
  const start = performance.now();
  await client.connect(transport);
  const result = await client.callTool({ name: 'echo', arguments: { text: 'first' } });
  const end = performance.now();
  if (result.content[0].text !== 'first') throw new Error('wrong answer');
  if (transport.wire !== 'msgpack') throw new Error(`${wire}: ended on ${transport.wire}`);
  await client.close();
  if (!ready) throw new Error('the child never said it was ready');
  return { total: end - start, afterReady: end - ready, bytes: sent + received };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main() {
  const rounds = Number(process.argv[2] ?? 40);
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioMsgpackClientTransport } = await import('mcp-msgpack-transport');
  // Warm-up: the first child of a run pays for cold caches.
  await once('msgpack', Client, StdioMsgpackClientTransport);
  await once('auto', Client, StdioMsgpackClientTransport);
  const runs = { auto: [], msgpack: [] };
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 ? ['auto', 'msgpack'] : ['msgpack', 'auto'];
    for (const wire of order) runs[wire].push(await once(wire, Client, StdioMsgpackClientTransport));
  }
  const runtime = typeof Bun !== 'undefined' ? `bun ${Bun.version}` : `node ${process.version}`;
  console.log(`${rounds} rounds, ${runtime}, each a fresh child to the first tools/call result`);
  console.log('metric              auto (median)   msgpack (median)   auto/msgpack (median of per-round ratios, p10-p90)');
  for (const metric of ['total', 'afterReady', 'bytes']) {
    const ratios = runs.auto.map((a, i) => a[metric] / runs.msgpack[i][metric]).sort((x, y) => x - y);
    const unit = metric === 'bytes' ? ' B ' : ' ms';
    const fmt = (v) => (metric === 'bytes' ? String(v) : v.toFixed(1)).padStart(10) + unit;
    const p = (q) => ratios[Math.min(ratios.length - 1, Math.floor(q * ratios.length))].toFixed(3);
    console.log(`${metric.padEnd(18)}${fmt(median(runs.auto.map((r) => r[metric])))}    ${fmt(median(runs.msgpack.map((r) => r[metric])))}      ${median(ratios).toFixed(3)}x (${p(0.1)}-${p(0.9)})`);
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
