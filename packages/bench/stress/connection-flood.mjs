// Does a flood of connections that send no request lock a new client out (issue 39, item 6)? A server
// (McpHttpHandler with one `echo` tool, in a process of its own, on loopback, default ListenOptions: cap
// 1,000) is flooded with --silent connections that send nothing and --partial ones that send part of their
// headers, held for the whole run; then --calls new MCP clients (our HTTP client on SDK v1: initialize, then
// tools/call), one a second, each on fresh connections. Prints each call's outcome and time, and how many
// flood connections the server left open.
//   node packages/bench/stress/connection-flood.mjs [--silent 2000] [--partial 2000] [--calls 10]
//        [--node-cap]   (node:http's own maxConnections = 1,000 instead of listenNode's: the behaviour before)
//   bun packages/bench/stress/connection-flood.mjs [--listen bun]   (listenBun; default listenNode)
// Bounded: the flood is destroyed and the server stopped after the calls. Numbers, not a test (the behaviour
// is tested in packages/transport-msgpack/test/http-connection-cap.test.ts).
import { spawn } from 'node:child_process';
import { connect } from 'node:net';

const argv = process.argv.slice(2);
const option = (name, fallback) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : fallback);

/** The server side (the child): prints its URL, serves until stdin ends. */
async function serve() {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { z } = await import('zod');
  const { McpHttpHandler, listenBun, listenNode } = await import('mcp-msgpack-transport');
  const handler = new McpHttpHandler({
    createServer: () => {
      const server = new McpServer({ name: 'flood', version: '1.0.0' });
      server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
      return server;
    },
  });
  const nodeCap = argv.includes('--node-cap');
  const running = option('listen', 'node') === 'bun' ? await listenBun(handler) : await listenNode(handler, nodeCap ? { maxConnections: 0 } : {});
  if (nodeCap) running.server.maxConnections = 1_000;
  process.stdout.write(`${running.url.href}\n`);
  process.stdin.on('end', () => running.close().then(() => process.exit(0)));
  process.stdin.resume();
}

async function measure() {
  const silent = Number(option('silent', 2000));
  const partial = Number(option('partial', 2000));
  const calls = Number(option('calls', 10));
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, '--serve', ...argv], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = new URL(await new Promise((resolve) => child.stdout.once('data', (chunk) => resolve(String(chunk).trim()))));
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { HttpMsgpackClientTransport } = await import('mcp-msgpack-transport');
  const flood = [];
  for (let i = 0; i < silent + partial; i++) {
    const socket = connect(Number(url.port), url.hostname);
    socket.on('error', () => {});
    if (i >= silent) socket.once('connect', () => socket.write(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Ty`));
    flood.push(socket);
    // Paced a little, so that the listen backlog is not what is measured.
    if (i % 100 === 99) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const where = `${option('listen', 'node') === 'bun' ? 'listenBun' : 'listenNode'}${argv.includes('--node-cap') ? " with node:http's own maxConnections" : ''}`;
  console.log(
    `${typeof globalThis.Bun !== 'undefined' ? `bun ${globalThis.Bun.version}` : `node ${process.version}`}, ${where}: ${silent} silent + ${partial} partial-header connections held, then ${calls} new clients, one a second`,
  );
  let served = 0;
  let slowest = 0;
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    let outcome;
    try {
      const client = new Client({ name: 'newcomer', version: '1' });
      await client.connect(new HttpMsgpackClientTransport(url));
      await client.callTool({ name: 'echo', arguments: { text: 'in' } });
      await client.close();
      outcome = 'served';
      served++;
    } catch (error) {
      outcome = `failed (${String(error?.message ?? error).slice(0, 70)})`;
    }
    const ms = performance.now() - started;
    if (outcome === 'served') slowest = Math.max(slowest, ms);
    console.log(`  call ${i + 1}: ${outcome} in ${ms.toFixed(0)} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  console.log(`  ${served} of ${calls} served (the slowest in ${slowest.toFixed(0)} ms); ${flood.filter((socket) => !socket.destroyed).length} of the flood's ${silent + partial} connections still open`);
  for (const socket of flood) socket.destroy();
  child.stdin.end();
  await new Promise((resolve) => child.once('exit', resolve));
}

await (argv.includes('--serve') ? serve() : measure());
