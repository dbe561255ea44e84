// Serving a handler on Node: node:http, with the node adapter.
import { createServer, type Server as NodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebMcpHttpHandler } from '../server/handler.js';
import { serveNodeRequest } from './node-adapter.js';
import { capConnections } from './connection-cap.js';
import { DEFAULT_CONNECTION_LIMITS, DEFAULT_LISTEN_HOST, DEFAULT_MCP_PATH, type ConnectionLimits, type ListenOptions } from '../server/listen-options.js';

export interface RunningHttpServer {
  url: URL;
  server: NodeServer;
  close(): Promise<void>;
}

/** Starts a node:http server for the handler, on loopback unless told otherwise. */
export async function listenNode(handler: WebMcpHttpHandler, options: ListenOptions = {}): Promise<RunningHttpServer> {
  const host = options.host ?? DEFAULT_LISTEN_HOST;
  const path = options.path ?? DEFAULT_MCP_PATH;
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...definedOnly(options) };
  // node:http checks the header and request deadlines on an interval (30 s by default): a finer one keeps
  // them close to what they say.
  const server = createServer({ connectionsCheckingInterval: 1_000 }, (req, res) => {
    if ((req.url ?? '/').split('?', 1)[0] !== path) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      return;
    }
    serveNodeRequest((request, options) => handler.handle(request, options), req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
      else res.destroy();
    });
  });
  // Left to node, `Expect: 100-continue` is answered 100 before the handler sees the request, so a client
  // would send a 100 MiB body only to meet 413. Handed to the handler, 100 goes out when the body is read
  // (node-adapter's continueOnRead), after the length and headers are accepted.
  server.on('checkContinue', (req, res) => server.emit('request', req, res));
  // The headers are part of the request: node:http enforces no request deadline shorter than the header
  // one (a 1 s requestTimeout under the default 10 s headersTimeout answered nothing until the body ended).
  server.headersTimeout = headersDeadline(limits);
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.timeout = limits.idleTimeoutMs;
  // Not node:http's own maxConnections, which turns every new connection away at the cap: at the cap a new
  // connection closes the one that has waited longest with no request in flight (connection-cap.ts).
  if (limits.maxConnections > 0) capConnections(server, limits.maxConnections);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: new URL(`http://${shownHost}:${address.port}${path}`),
    server,
    close: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The header deadline node:http gets: never longer than the request deadline, which includes the headers. */
function headersDeadline({ headersTimeoutMs, requestTimeoutMs }: ConnectionLimits): number {
  if (!(requestTimeoutMs > 0)) return headersTimeoutMs;
  return headersTimeoutMs > 0 ? Math.min(headersTimeoutMs, requestTimeoutMs) : requestTimeoutMs;
}

/** The connection limits given in `options`, leaving out those set to undefined. */
function definedOnly(options: ListenOptions): Partial<ConnectionLimits> {
  const limits: Partial<ConnectionLimits> = {};
  for (const key of Object.keys(DEFAULT_CONNECTION_LIMITS) as (keyof ConnectionLimits)[]) {
    const value = options[key];
    if (value !== undefined) limits[key] = value;
  }
  return limits;
}
