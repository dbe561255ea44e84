// What our stdio server transport costs per call by itself, in-process, for the bytes the stock SDK client
// sends (JSON lines, no upgrade offer) and the bytes our client sends on its defaults (the upgrade offer,
// then a mixed stream, SPEC.md 7.4): a StdioMsgpackServerTransport on in-memory streams, each request
// answered at once with a fixed result (no McpServer), the variants interleaved round by round.
//   node packages/bench/measure/measure-stdio-transport.mjs [rounds=21] [calls=5000] [small|object-50KB] [--before OTHER/dist/esm/index.js] [--only stock|ours]
//   (and bun ...; under `node --cpu-prof` or `bun --cpu-prof` with --only, a profile of one variant)
// --before adds the same two variants on another build of the transport (stock@before, ours@before).
// Prints process CPU µs per call (median of the rounds) and the medians of the per-round ratios with their range.
import { resolve } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { reviewContext } from '../dist/esm/payloads.js';

const { values: flags, positionals } = parseArgs({ allowPositionals: true, options: { before: { type: 'string' }, only: { type: 'string' } } });
const rounds = Number(positionals[0] ?? 21);
const calls = Number(positionals[1] ?? 5000);
const kind = positionals[2] ?? 'small';
const context = reviewContext(50_000);
const RESULTS = {
  small: (id) => ({ content: [{ type: 'text', text: `ok bench ${id}` }] }),
  'object-50KB': () => ({ content: [{ type: 'text', text: 'review' }], structuredContent: context }),
};
const result = RESULTS[kind];
if (!result) throw new Error(`unknown case ${kind} (known: ${Object.keys(RESULTS).join(', ')})`);

const OFFER = ',"_meta":{"mcp-msgpack/wire":{"offer":["msgpack-v1"],"mixed":true}}';
/** The benchmark's small tools/call as both clients send it after the upgrade (byte for byte the same line). */
const requests = Array.from({ length: 1000 }, (_, i) => Buffer.from(`{"method":"tools/call","params":{"name":"small","arguments":{"n":${i},"tag":"bench"}},"jsonrpc":"2.0","id":${i + 1}}\n`));

/** A server transport fed as `client` would feed it; returns a function that makes n calls. */
async function session(Transport, client) {
  const stdin = new PassThrough();
  const stdout = new Writable({ write: (_chunk, _encoding, callback) => callback(), writev: (_chunks, callback) => callback() });
  const transport = new Transport(stdin, stdout);
  let answered;
  transport.onmessage = (message) => {
    if (!('id' in message)) return;
    const body = message.method === 'initialize' ? { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'm', version: '1' } } : result(message.id);
    void transport.send({ result: body, jsonrpc: '2.0', id: message.id }).then(() => answered());
  };
  await transport.start();
  const ask = (line) =>
    new Promise((done) => {
      answered = done;
      stdin.write(line);
    });
  await ask(`{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"m","version":"1"}${client === 'ours' ? OFFER : ''}},"jsonrpc":"2.0","id":0}\n`);
  return async (n) => {
    for (let i = 0; i < n; i++) await ask(requests[i % requests.length]);
  };
}

const builds = { '': (await import('mcp-msgpack-transport')).StdioMsgpackServerTransport };
if (flags.before) builds['@before'] = (await import(pathToFileURL(resolve(flags.before)).href)).StdioMsgpackServerTransport;
const sessions = {};
for (const [suffix, Transport] of Object.entries(builds)) {
  for (const client of ['stock', 'ours']) if (!flags.only || flags.only === client) sessions[client + suffix] = await session(Transport, client);
}
const names = Object.keys(sessions);
for (const name of names) await sessions[name](Math.ceil(calls / 4));
const perCall = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(k + round) % names.length];
    const before = process.cpuUsage();
    await sessions[name](calls);
    const used = process.cpuUsage(before);
    perCall[name].push((used.user + used.system) / calls);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const against = (a, b) => {
  const ratios = perCall[a].map((x, i) => x / perCall[b][i]);
  return `${a}/${b} ${median(ratios).toFixed(3)}x (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`;
};
const runtimeName = typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node ${process.versions.node}`;
const ratios = [];
if (perCall.ours && perCall.stock) ratios.push(against('ours', 'stock'));
if (perCall['ours@before'] && perCall['stock@before']) ratios.push(against('ours@before', 'stock@before'), against('ours', 'ours@before'));
console.log(`${runtimeName}, ${kind}, ${rounds} rounds of ${calls} calls: ${names.map((name) => `${name} ${median(perCall[name]).toFixed(2)} µs`).join(', ')}${ratios.length ? `; ${ratios.join(', ')}` : ''}`);
