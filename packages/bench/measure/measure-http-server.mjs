// The servers packages/bench/measure/measure-http.mjs measures, in a reusable form (the benchmark package can import
// startMeasureServer): an McpServer with payload tools, behind either our HTTP transport (which speaks
// MessagePack and JSON) or the SDK's own StreamableHTTPServerTransport (JSON only), on node:http, loopback.
//
// Run as a child process: `node packages/bench/measure/measure-http-server.mjs ours|sdk` prints `listening <url>` and then
// answers IPC messages `{ type: 'cpu' }` with `{ type: 'cpu', micros }` (its process CPU time so far).
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { listenNode, McpHttpHandler } from 'mcp-msgpack-transport';
import { z } from 'zod';

const MiB = 1024 * 1024;

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
  'image-1MiB': { tool: 'image', arguments: { size: '1MiB' } },
  'image-5MiB': { tool: 'image', arguments: { size: '5MiB' } },
};

/** Further shapes (measure-reply-streams.mjs): a long text, and numbers (an embedding-like array). */
export const MORE_PAYLOADS = {
  'text-64KB': { tool: 'text', arguments: { size: '64KB' } },
  numeric: { tool: 'numeric', arguments: { count: 8192 } },
};

/** The MCP server every measured transport serves. Payloads are built once and shared. */
export function createPayloadServerFactory() {
  const objects = { '50KB': objectPayload(50 * 1024), '1MB': objectPayload(1024 * 1024) };
  const images = { '1MiB': imageBase64(MiB), '5MiB': imageBase64(5 * MiB) };
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(Math.ceil((64 * 1024) / 45)).slice(0, 64 * 1024);
  const numbers = Array.from({ length: 8192 }, (_, i) => Math.sin(i) * 1000);
  return () => {
    const server = new McpServer({ name: 'measure-http', version: '1.0.0' });
    server.registerTool('small', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    server.registerTool('objects', { inputSchema: { size: z.enum(['50KB', '1MB']) } }, async ({ size }) => ({
      content: [{ type: 'text', text: `${objects[size].items.length} items` }],
      structuredContent: objects[size],
    }));
    server.registerTool('image', { inputSchema: { size: z.enum(['1MiB', '5MiB']) } }, async ({ size }) => ({
      content: [{ type: 'image', data: images[size], mimeType: 'image/png' }],
    }));
    server.registerTool('text', { inputSchema: { size: z.enum(['64KB']) } }, async () => ({ content: [{ type: 'text', text }] }));
    server.registerTool('numeric', { inputSchema: { count: z.number() } }, async ({ count }) => ({
      content: [{ type: 'text', text: `${count} numbers` }],
      structuredContent: { values: numbers.slice(0, count) },
    }));
    return server;
  };
}

/**
 * Starts one measured server on 127.0.0.1: 'ours' (McpHttpHandler on node:http) or 'sdk' (the SDK's
 * StreamableHTTPServerTransport, one per session, on node:http). Returns its URL and a close function.
 */
export async function startMeasureServer(kind, createServer_ = createPayloadServerFactory()) {
  if (kind === 'ours') {
    // MEASURE_JSON_RESPONSE=1: one-body replies, where the per-message encoding (SPEC.md 9.6) applies.
    const enableJsonResponse = process.env.MEASURE_JSON_RESPONSE === '1';
    // MEASURE_REPLY_STREAMS=always|when-needed: SPEC.md 9.6.2 (default: the handler's).
    const replyStreams = process.env.MEASURE_REPLY_STREAMS || undefined;
    const running = await listenNode(new McpHttpHandler({ createServer: createServer_, maxMessageBytes: 64 * MiB, enableJsonResponse, replyStreams }));
    return { url: running.url, close: running.close };
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
 * This file as a child process serving `kind` ('ours' or 'sdk'; `env` adds variables, such as
 * MEASURE_REPLY_STREAMS): its URL, its CPU time so far over IPC, and a stop.
 */
export function forkMeasureServer(kind, env = {}) {
  const child = fork(new URL(import.meta.url), [kind], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], env: { ...process.env, ...env } });
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
          cpu: () => new Promise((done) => (pending.push(done), child.send({ type: 'cpu' }))),
          stop: () => child.disconnect(),
        });
      }
    });
    child.on('exit', (code) => reject(new Error(`${kind} server exited (${code})`)));
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const kind = process.argv[2];
  if (kind !== 'ours' && kind !== 'sdk') {
    console.error('usage: measure-http-server.mjs ours|sdk');
    process.exit(2);
  }
  const running = await startMeasureServer(kind);
  process.on('message', (message) => {
    if (message?.type === 'cpu') {
      const usage = process.cpuUsage();
      process.send({ type: 'cpu', micros: usage.user + usage.system });
    }
  });
  process.on('disconnect', () => void running.close().then(() => process.exit(0)));
  console.log(`listening ${running.url.href}`);
}
