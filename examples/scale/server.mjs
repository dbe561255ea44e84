// One instance of a scaled-out MCP server: several of these run behind nginx (nginx.conf.mjs) and share
// their streams through Redis (RedisEventStore), so any instance can resume any stream.
//
//   node examples/scale/server.mjs --port N --redis redis://127.0.0.1:6379 --name i1 [--max-stream-length 1000]
//     [--max-event-bytes N] [--max-stream-bytes N] [--max-store-bytes N] [--operation-timeout-ms N] [--cluster]
//
// --cluster: --redis names one node of a Redis Cluster (createCluster discovers the others).
// --redis unix:///run/redis/redis.sock connects through a unix socket instead (Redis on the same host, with
// `unixsocket` set): each event's bytes cost this process less to hand over than through loopback TCP.
//
// Serves /mcp (sessionful: session ids start with the instance name, which nginx routes on),
// /mcp-stateless (a fresh server per request: any instance serves any request), /ready (200 while Redis
// answers, 503 otherwise, always within 1 s) and /live (200 while the process serves: never asks Redis).
// Prints `listening <port>`.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createClient, createCluster } from 'redis';
import { z } from 'zod';
import { McpHttpHandler, nativeImage } from 'mcp-msgpack-transport';
import { reconnectWithBackoff, RedisEventStore } from 'mcp-msgpack-transport/redis';

function argument(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : fallback;
}

const name = argument('name', 'i1');
const port = Number(argument('port', '0'));
const redisUrl = argument('redis', 'redis://127.0.0.1:6379');
const maxStreamLength = Number(argument('max-stream-length', '1000'));
const budgets = Object.fromEntries(
  [
    ['maxEventBytes', 'max-event-bytes'],
    ['maxStreamBytes', 'max-stream-bytes'],
    ['maxStoreBytes', 'max-store-bytes'],
    ['operationTimeoutMs', 'operation-timeout-ms'],
  ]
    .filter(([, flag]) => argument(flag) !== undefined)
    .map(([option, flag]) => [option, Number(argument(flag))]),
);
const cluster = process.argv.includes('--cluster');
/** 0: no event store (the benchmark's baseline). */
const useStore = argument('store', 'redis') === 'redis';

/** Media of a given size, the same bytes on every instance (a benchmark's 5 MiB read). */
const mediaCache = new Map();
function media(size) {
  let bytes = mediaCache.get(size);
  if (!bytes) {
    bytes = new Uint8Array(size);
    for (let i = 0; i < size; i++) bytes[i] = (i * 31 + 7) & 0xff;
    mediaCache.set(size, bytes);
  }
  return bytes;
}

function createMcpServer() {
  const server = new McpServer({ name: 'scale-example', version: '1.0.0' }, { capabilities: { logging: {} } });
  // Which instance answered: how the tests and the benchmark see the load balancer at work.
  server.registerTool('whoami', { inputSchema: { text: z.string().optional() } }, async ({ text }) => ({ content: [{ type: 'text', text: `${name} ${text ?? ''}`.trim() }] }));
  // A long streamed response: `count` progress notifications, `delayMs` apart, then the result.
  server.registerTool('steps', { inputSchema: { count: z.number().int().min(1).max(10_000), delayMs: z.number().min(0).max(1_000) } }, async ({ count, delayMs }, extra) => {
    const token = extra._meta?.progressToken ?? 'steps';
    for (let step = 1; step <= count; step++) {
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: step, total: count } });
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    return { content: [{ type: 'text', text: `${name} did ${count} steps` }] };
  });
  // Messages on the session's GET stream (not related to this request), `delayMs` apart.
  server.registerTool('notify', { inputSchema: { count: z.number().int().min(1).max(100_000), delayMs: z.number().min(0).max(1_000) } }, async ({ count, delayMs }) => {
    for (let n = 1; n <= count; n++) {
      await server.server.sendLoggingMessage({ level: 'info', data: { n, from: name } });
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    return { content: [{ type: 'text', text: `${name} sent ${count}` }] };
  });
  // A media read: native bytes (MessagePack bin when negotiated, base64 otherwise).
  server.registerTool(
    'media',
    {
      inputSchema: {
        bytes: z
          .number()
          .int()
          .min(1)
          .max(64 * 1024 * 1024),
      },
    },
    async ({ bytes }) => ({
      content: [nativeImage(media(bytes), 'image/png')],
    }),
  );
  return server;
}

/**
 * A `unix:///path` URL as the client's socket path (the `redis` client v5 does not parse such URLs). Every
 * connection reconnects with backoff, capped at ~1 s, and never gives up: a Redis restart is a non-event.
 */
function redisClientOptions(url) {
  const socket = { reconnectStrategy: reconnectWithBackoff };
  return url.startsWith('unix://') ? { socket: { ...socket, path: url.slice('unix://'.length) } } : { url, socket };
}

function connectRedis() {
  if (cluster) return createCluster({ rootNodes: [{ url: redisUrl }], defaults: { socket: { reconnectStrategy: reconnectWithBackoff } } }).connect();
  return createClient(redisClientOptions(redisUrl)).connect();
}

/** The store reports the client's errors (Redis down, reconnecting): printed at most once a second. */
let lastReport = 0;
function report(error) {
  const now = Date.now();
  if (now - lastReport < 1_000) return;
  lastReport = now;
  console.error(`${name}: ${error.message}`);
}

const redis = useStore ? await connectRedis() : undefined;
const eventStore = redis ? new RedisEventStore({ client: redis, instanceId: `${name}-${randomUUID()}`, maxStreamLength, onerror: report, ...budgets }) : undefined;
const common = { createServer: createMcpServer, eventStore, retryInterval: 500, nativeBytes: true };
const handlers = {
  '/mcp': new McpHttpHandler({ ...common, sessionIdGenerator: () => `${name}.${randomUUID()}` }),
  '/mcp-stateless': new McpHttpHandler({ ...common, stateless: true }),
};

const server = createServer((req, res) => {
  const path = (req.url ?? '/').split('?', 1)[0];
  if (path === '/ready') {
    // Readiness: this instance can reach Redis (a Kubernetes readinessProbe would call this). The store's
    // PING is bounded: a stopped or stalled Redis is a 503 in at most 500 ms, never a hang.
    Promise.resolve(eventStore ? eventStore.ready(500) : true).then((ready) => (ready ? res.writeHead(200).end('ready') : res.writeHead(503).end('redis unreachable')));
    return;
  }
  if (path === '/live') {
    // Liveness: the process serves requests. Never asks Redis: a Redis outage must not restart instances.
    res.writeHead(200).end('live');
    return;
  }
  const handler = handlers[path];
  if (!handler) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
    return;
  }
  handler.handleNode(req, res).catch((error) => {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    else res.destroy();
  });
});
server.listen(port, '127.0.0.1', () => console.log(`listening ${server.address().port}`));

async function stop() {
  await Promise.all(Object.values(handlers).map((handler) => handler.close()));
  await eventStore?.close();
  // A client whose Redis is away would wait for it to come back before closing: destroyed instead.
  if (redis?.isReady) await redis.close().catch(() => redis.destroy());
  else redis?.destroy();
  server.closeAllConnections();
  server.close(() => process.exit(0));
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
