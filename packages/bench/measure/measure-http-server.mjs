// The servers packages/bench/measure/measure-http.mjs measures, in a reusable form (the benchmark package can import
// startMeasureServer): an McpServer with payload tools, behind either our HTTP transport (which speaks
// MessagePack and JSON) or the SDK's own Streamable HTTP transport (JSON only), loopback. Served on node:http
// (our listenNode, the SDK's StreamableHTTPServerTransport), or with `bun` on Bun.serve as each is served
// there (our listenBun, the SDK's WebStandardStreamableHTTPServerTransport as the benchmark's stock server).
//
// Run as a child process: `node packages/bench/measure/measure-http-server.mjs ours|sdk [node|bun]` prints
// `listening <url>` and then answers IPC messages `{ type: 'cpu' }` with `{ type: 'cpu', micros }` (its process
// CPU time so far). MEASURE_JSON_RESPONSE=1: replies in one body; on Bun.serve the SDK's too, as the benchmark
// serves both (on node:http the SDK's stays on its default, SSE). MEASURE_REPLY_STREAMS=always|when-needed: SPEC.md
// 9.6.2 (default: the handler's).
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { diffText, embeddingResult } from '../dist/esm/payloads.js';
import { listenStock } from '../dist/esm/servers/http-host.js';

const MiB = 1024 * 1024;
// MEASURE_TRANSPORT: another build's entry (its dist/esm/index.js), to set two builds side by side (measure-http.mjs --before).
const { listenBun, listenNode, McpHttpHandler } = await import(process.env.MEASURE_TRANSPORT ? pathToFileURL(process.env.MEASURE_TRANSPORT).href : 'mcp-msgpack-transport');

/** Deterministic object-heavy data of about `bytes` bytes of JSON: records with strings, numbers, flags. */
export function objectPayload(bytes) {
  const items = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const item = {
      id: i,
      name: `file-${i}.txt`,
      path: `/data/project/src/module-${i % 97}/file-${i}.txt`,
      size: (i * 7919) % 100_000,
      modified: 1_700_000_000 + i * 13,
      isDirectory: i % 5 === 0,
      tags: ['alpha', 'beta'].slice(0, i % 3),
    };
    size += JSON.stringify(item).length + 1;
    items.push(item);
  }
  return { items };
}

/** `bytes` of pseudo-random image data, as base64 (what MCP's image content carries on both wires). */
export function imageBase64(bytes) {
  const data = Buffer.allocUnsafe(bytes);
  let x = 2463534242;
  for (let i = 0; i < bytes; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    data[i] = x & 0xff;
  }
  return data.toString('base64');
}

export const PAYLOADS = {
  small: { tool: 'small', arguments: { text: 'hello' } },
  'objects-50KB': { tool: 'objects', arguments: { size: '50KB' } },
  'objects-1MB': { tool: 'objects', arguments: { size: '1MB' } },
  'text-64KB': { tool: 'text', arguments: { kind: 'diff' } },
  numeric: { tool: 'numeric', arguments: { kind: 'embedding' } },
  'image-1MiB': { tool: 'image', arguments: { size: '1MiB' } },
  'image-5MiB': { tool: 'image', arguments: { size: '5MiB' } },
};

/** The MCP server every measured transport serves. Payloads are built once and shared. */
export function createPayloadServerFactory() {
  const objects = { '50KB': objectPayload(50 * 1024), '1MB': objectPayload(1024 * 1024) };
  const images = { '1MiB': imageBase64(MiB), '5MiB': imageBase64(5 * MiB) };
  // The benchmark's text and numeric venues' payloads (a 64 KB diff; 1,536 floats and 1,536 integers).
  const texts = { diff: diffText(64 * 1024) };
  const numeric = { embedding: embeddingResult() };
  return () => {
    const server = new McpServer({ name: 'measure-http', version: '1.0.0' });
    server.registerTool('small', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    server.registerTool('objects', { inputSchema: { size: z.enum(['50KB', '1MB']) } }, async ({ size }) => ({
      content: [{ type: 'text', text: `${objects[size].items.length} items` }],
      structuredContent: objects[size],
    }));
    server.registerTool('text', { inputSchema: { kind: z.enum(['diff']) } }, async ({ kind }) => ({ content: [{ type: 'text', text: texts[kind] }] }));
    server.registerTool('numeric', { inputSchema: { kind: z.enum(['embedding']) } }, async ({ kind }) => ({
      content: [{ type: 'text', text: `${kind} result` }],
      structuredContent: numeric[kind],
    }));
    server.registerTool('image', { inputSchema: { size: z.enum(['1MiB', '5MiB']) } }, async ({ size }) => ({
      content: [{ type: 'image', data: images[size], mimeType: 'image/png' }],
    }));
    return server;
  };
}

/**
 * Starts one measured server on 127.0.0.1: 'ours' (McpHttpHandler on listenNode, or listenBun) or 'sdk' (the
 * SDK's transport, one per session: StreamableHTTPServerTransport on node:http, or on Bun.serve the
 * benchmark's stock server). Returns its URL and a close function.
 */
export async function startMeasureServer(kind, createServer_ = createPayloadServerFactory(), serve = 'node') {
  // MEASURE_JSON_RESPONSE=1: one-body replies, where the per-message encoding (SPEC.md 9.6) applies.
  const enableJsonResponse = process.env.MEASURE_JSON_RESPONSE === '1';
  if (serve === 'bun' && typeof Bun === 'undefined') throw new Error('serving on Bun.serve needs the Bun runtime');
  if (kind === 'ours') {
    const listen = serve === 'bun' ? listenBun : listenNode;
    // MEASURE_ENCODING: the per-message policy ('smallest': MessagePack replies always, as the benchmark's msgpack variant).
    const encoding = process.env.MEASURE_ENCODING;
    const replyStreams = process.env.MEASURE_REPLY_STREAMS || undefined;
    const running = await listen(new McpHttpHandler({ createServer: createServer_, maxMessageBytes: 64 * MiB, enableJsonResponse, replyStreams, ...(encoding ? { encoding } : {}) }));
    return { url: running.url, close: running.close };
  }
  if (serve === 'bun') {
    if (!enableJsonResponse) throw new Error('the SDK on Bun.serve is measured with one-body replies (MEASURE_JSON_RESPONSE=1), as the benchmark serves it');
    // The benchmark's own stock server: the web-standard transport on Bun.serve, JSON responses, the SDK's
    // per-reply leak released after each reply (servers/sdk-leak.ts says why).
    const port = await listenStock(createServer_);
    return { url: new URL(`http://127.0.0.1:${port}/mcp`), close: async () => {} };
  }
  const transports = new Map();
  const http = createServer(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? transports.get(id) : undefined;
    if (!transport) {
      const made = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (sessionId) => transports.set(sessionId, made) });
      made.onclose = () => made.sessionId && transports.delete(made.sessionId);
      await createServer_().connect(made);
      transport = made;
    }
    await transport.handleRequest(req, res);
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: new URL(`http://127.0.0.1:${http.address().port}/mcp`),
    close: async () => {
      for (const transport of transports.values()) await transport.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/**
 * This file as a child process serving `kind` ('ours' or 'sdk') on `serve` ('node' or 'bun'; `env` adds
 * variables, such as MEASURE_REPLY_STREAMS): its URL, its pid, its CPU time so far over IPC, and a stop.
 */
export function forkMeasureServer(kind, env = {}, serve = 'node') {
  const child = fork(new URL(import.meta.url), [kind, serve], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], env: { ...process.env, ...env } });
  const pending = [];
  child.on('message', (message) => {
    if (message?.type === 'cpu') pending.shift()?.(message.micros);
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /listening (\S+)/.exec(output);
      if (match) {
        resolve({
          url: new URL(match[1]),
          pid: child.pid,
          cpu: () => new Promise((done) => (pending.push(done), child.send({ type: 'cpu' }))),
          stop: () => child.disconnect(),
        });
      }
    });
    child.on('exit', (code) => reject(new Error(`${kind} server exited (${code})`)));
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [kind, serve = 'node'] = process.argv.slice(2);
  if ((kind !== 'ours' && kind !== 'sdk') || (serve !== 'node' && serve !== 'bun')) {
    console.error('usage: measure-http-server.mjs ours|sdk [node|bun]');
    process.exit(2);
  }
  const running = await startMeasureServer(kind, undefined, serve);
  process.on('message', (message) => {
    if (message?.type === 'cpu') {
      const usage = process.cpuUsage();
      process.send({ type: 'cpu', micros: usage.user + usage.system });
    }
  });
  process.on('disconnect', () => void running.close().then(() => process.exit(0)));
  console.log(`listening ${running.url.href}`);
}
