// Serving a handler on Node: node:http, with the node adapter.
import { createServer, type Server as NodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebMcpHttpHandler } from '../server/handler.js';
import { serveNodeRequest } from './node-adapter.js';
import { DEFAULT_LISTEN_HOST, DEFAULT_MCP_PATH, type ListenOptions } from '../server/listen-options.js';

export interface RunningHttpServer {
  url: URL;
  server: NodeServer;
  close(): Promise<void>;
}

/** Starts a node:http server for the handler, on loopback unless told otherwise. */
export async function listenNode(handler: WebMcpHttpHandler, options: ListenOptions = {}): Promise<RunningHttpServer> {
  const host = options.host ?? DEFAULT_LISTEN_HOST;
  const path = options.path ?? DEFAULT_MCP_PATH;
  const server = createServer((req, res) => {
    if ((req.url ?? '/').split('?', 1)[0] !== path) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      return;
    }
    serveNodeRequest((request, options) => handler.handle(request, options), req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
      else res.destroy();
    });
  });
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
