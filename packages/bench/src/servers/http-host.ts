import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { writeNodeResponse } from 'mcp-msgpack-transport';
import { releaseAnsweredJsonStreams, sdkAsPublished } from './sdk-leak.js';

/** Something that can be connected to a transport: the SDK's Server or McpServer. */
export interface Connectable {
  connect(transport: import('@modelcontextprotocol/sdk/shared/transport.js').Transport): Promise<void>;
  close(): Promise<void>;
}

export type WebHandler = (request: Request) => Promise<Response>;

export interface HostOptions {
  /** Compress JSON response bodies with gzip when the client accepts it (the "JSON + gzip" variant). */
  gzip?: boolean;
}

/**
 * The stock SDK's Streamable HTTP transport (web-standard flavour, JSON responses), one transport and one
 * server instance per session, as the SDK's examples do.
 */
export function stockSessionHandler(createServer: () => Connectable): WebHandler {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  return async (request) => {
    const id = request.headers.get('mcp-session-id');
    let transport = id ? sessions.get(id) : undefined;
    if (!transport) {
      if (id) return new Response('unknown session', { status: 404 });
      const fresh = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        enableJsonResponse: true,
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, fresh),
        onsessionclosed: (sessionId) => void sessions.delete(sessionId),
      });
      await createServer().connect(fresh);
      transport = fresh;
    }
    const response = await transport.handleRequest(request);
    if (!sdkAsPublished()) releaseAnsweredJsonStreams(transport);
    return response;
  };
}

/**
 * The stock SDK served the way its users run it: on Node, its StreamableHTTPServerTransport on node:http
 * (one per session, JSON responses); on Bun, its web-standard transport on Bun.serve. Returns the port.
 */
export async function listenStock(makeServer: () => Connectable): Promise<number> {
  const bun = (globalThis as { Bun?: { serve(options: object): { port: number } } }).Bun;
  if (bun) return bun.serve({ hostname: '127.0.0.1', port: 0, idleTimeout: 0, fetch: stockSessionHandler(makeServer) }).port;
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const server = createServer((req, res) => {
    void (async () => {
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      if (!transport) {
        if (id) return void res.writeHead(404).end('unknown session');
        const fresh = new StreamableHTTPServerTransport({
          sessionIdGenerator: randomUUID,
          enableJsonResponse: true,
          onsessioninitialized: (sessionId) => void sessions.set(sessionId, fresh),
          onsessionclosed: (sessionId) => void sessions.delete(sessionId),
        });
        await makeServer().connect(fresh);
        transport = fresh;
      }
      await transport.handleRequest(req, res);
      if (!sdkAsPublished()) releaseAnsweredJsonStreams(transport);
    })().catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error?.message ?? error));
    });
  });
  return listenOnLoopback(server);
}

/** Listens on a free loopback port; kept-alive connections outlive the clients' idle gaps between rounds. */
function listenOnLoopback(server: Server): Promise<number> {
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
}

/** Serves a web-standard handler on node:http (works on Node and Bun), optionally gzipping JSON bodies. */
export function listen(handler: WebHandler, options: HostOptions = {}): Promise<number> {
  const server = createServer((req, res) => {
    void serve(handler, options, req, res).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error?.message ?? error));
    });
  });
  return listenOnLoopback(server);
}

async function serve(handler: WebHandler, options: HostOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && chunks.length > 0;
  const request = new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
    method: req.method,
    headers,
    body: hasBody ? Buffer.concat(chunks) : undefined,
  });
  const response = await handler(request);
  const type = response.headers.get('content-type') ?? '';
  const compress = options.gzip && type.includes('application/json') && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  // Anything but a JSON body to gzip, streams included, goes out as the transport's own Node adapter writes it.
  if (!response.body || !compress) return writeNodeResponse(res, response);
  const outHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => (outHeaders[name] = value));
  const body = gzipSync(Buffer.from(await response.arrayBuffer()));
  outHeaders['content-encoding'] = 'gzip';
  outHeaders['vary'] = 'accept-encoding';
  outHeaders['content-length'] = String(body.length);
  res.writeHead(response.status, outHeaders);
  res.end(body);
}
