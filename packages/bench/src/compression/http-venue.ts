// The compression venue over HTTP (issue 41): the recorded filesystem session's tool results
// (corpus/filesystem-session.jsonl) served by our McpHttpHandler (node:http, or Bun.serve on Bun) with
// compression on, called over a session with JSON replies by a raw client that never decodes, with three
// Accept-Encodings: identity; `gzip, deflate` (the stock clients: they get our gzip 5); `zstd, br, gzip`
// (our client: zstd 3, or Brotli 4 on Node 20). Per call: the server process's CPU (its own process.cpuUsage,
// so the client's work is not counted) and the wire bytes of the reply, headers included. JSON + gzip 6 as a
// proxy adds it is the identity row plus gzip 6's coder time on the same bodies (venue.ts), since a proxy
// spends that CPU in a process of its own. Rounds interleave the three variants.
//   node packages/bench/dist/esm/compression/http-venue.js [--rounds 5] [--calls 200]
//   bun packages/bench/dist/esm/compression/http-venue.js
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as zlib from 'node:zlib';

const CORPUS = 'packages/bench/corpus/filesystem-session.jsonl';
const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';

/** The corpus's tool results, by index: what the served tool returns. */
function toolResults(): Record<string, unknown>[] {
  return readFileSync(CORPUS, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { request: { method: string }; reply: { result: Record<string, unknown> } })
    .filter((pair) => pair.request.method === 'tools/call')
    .map((pair) => pair.reply.result);
}

/** The child: our handler, compression on, a tool replaying the corpus; answers `cpu` on stdin with its CPU time. */
async function serve(): Promise<void> {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { z } = await import('zod');
  const transport = await import('mcp-msgpack-transport');
  const results = toolResults();
  const handler = new transport.McpHttpHandler({
    createServer: () => {
      const server = new McpServer({ name: 'replay', version: '1.0.0' });
      server.registerTool('replay', { inputSchema: { index: z.number().int() } }, async ({ index }) => results[index] as never);
      return server;
    },
    enableJsonResponse: true,
    compression: true,
  });
  const running = isBun ? await transport.listenBun(handler) : await transport.listenNode(handler);
  console.log(JSON.stringify({ url: running.url.href, calls: results.length }));
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'cpu') {
      const used = process.cpuUsage();
      console.log(JSON.stringify({ cpu: used.user + used.system }));
    }
  }
  await running.close();
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  headerBytes: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function post(url: URL, headers: Record<string, string>, body: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        let headerBytes = `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n`.length + 2;
        for (let i = 0; i < res.rawHeaders.length; i += 2) headerBytes += res.rawHeaders[i]!.length + res.rawHeaders[i + 1]!.length + 4;
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks), headerBytes });
      });
      res.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

const VARIANTS = [
  { id: 'identity', acceptEncoding: 'identity' },
  { id: 'stock client (gzip, deflate)', acceptEncoding: 'gzip, deflate' },
  { id: 'our client (zstd, br, gzip)', acceptEncoding: 'zstd, br, gzip' },
] as const;

async function drive(): Promise<void> {
  const argv = process.argv.slice(2);
  const value = (name: string, fallback: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
  const rounds = value('--rounds', 5);
  const callsPerRound = value('--calls', 200);
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => JSON.parse(((await lines.next()).value as string) ?? 'null') as { url?: string; calls?: number; cpu?: number };
  const { url: href, calls } = await next();
  const url = new URL(href!);
  const cpu = async () => {
    child.stdin!.write('cpu\n');
    return (await next()).cpu!;
  };
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await post(
    url,
    { ...base, 'accept-encoding': 'identity' },
    JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'venue', version: '1' } } }),
  );
  const session = { ...base, 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-11-25' };
  await post(url, { ...session, 'accept-encoding': 'identity' }, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  const perCall: Record<string, number[]> = {};
  const bytes: Record<string, number> = {};
  const codings: Record<string, string> = {};
  let id = 1;
  // One warm-up round per variant, then measured rounds, interleaved.
  for (let round = 0; round <= rounds; round++) {
    for (const variant of VARIANTS) {
      const before = await cpu();
      let wire = 0;
      for (let i = 0; i < callsPerRound; i++) {
        const reply = await post(
          url,
          { ...session, 'accept-encoding': variant.acceptEncoding },
          JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'replay', arguments: { index: i % calls! } } }),
        );
        if (reply.status !== 200) throw new Error(`status ${reply.status}: ${reply.body.toString().slice(0, 200)}`);
        wire += reply.body.byteLength + reply.headerBytes;
        codings[variant.id] = String(reply.headers['content-encoding'] ?? 'identity');
      }
      const used = (await cpu()) - before;
      if (round === 0) continue;
      (perCall[variant.id] ??= []).push(used / callsPerRound);
      bytes[variant.id] = wire / callsPerRound;
    }
  }
  child.stdin!.end();
  agent.destroy();
  // JSON + gzip 6 by a proxy: the identity reply's bytes coded, and gzip 6's coder time on the same bodies.
  const results = toolResults();
  let gzipBytes = 0;
  let gzipMicros = 0;
  for (let i = 0; i < callsPerRound; i++) {
    const body = Buffer.from(JSON.stringify({ result: results[i % calls!], jsonrpc: '2.0', id: 1 }));
    const start = process.cpuUsage();
    const coded = zlib.gzipSync(body, { level: 6 });
    const spent = process.cpuUsage(start);
    gzipMicros += spent.user + spent.system;
    gzipBytes += coded.byteLength - body.byteLength;
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const identityCpu = median(perCall.identity!);
  const proxyCpu = identityCpu + gzipMicros / callsPerRound;
  const proxyBytes = bytes.identity! + gzipBytes / callsPerRound + 'Content-Encoding: gzip\r\n'.length;
  console.log(`compression over HTTP on ${isBun ? 'Bun (Bun.serve)' : `Node ${process.versions.node} (node:http)`}: ${calls} recorded tool results, ${callsPerRound} calls a round, median of ${rounds} rounds`);
  console.log('| variant | coding | wire bytes/call (headers included) | vs JSON + gzip 6 | server CPU µs/call | vs our server + gzip 6 proxy |');
  console.log('| --- | --- | ---: | ---: | ---: | ---: |');
  console.log(`| JSON + gzip 6 added by a proxy | gzip | ${proxyBytes.toFixed(0)} | 1.00x | ${proxyCpu.toFixed(0)} (identity + gzip 6) | 1.00x |`);
  for (const variant of VARIANTS) {
    const cpuPerCall = median(perCall[variant.id]!);
    console.log(
      `| ${variant.id} | ${codings[variant.id]} | ${bytes[variant.id]!.toFixed(0)} | ${(bytes[variant.id]! / proxyBytes).toFixed(2)}x | ${cpuPerCall.toFixed(0)} | ${(cpuPerCall / proxyCpu).toFixed(2)}x |`,
    );
  }
}

if (process.argv.includes('--serve')) await serve();
else await drive();
