import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { gzipSync } from 'node:zlib';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { MSGPACK_STREAM_MEDIA_TYPE } from 'mcp-msgpack-transport/wire';
import { releaseAnsweredJsonStreams, sdkAsPublished } from './sdk-leak.js';

/** Something that can be connected to a transport: the SDK's Server or McpServer. */
export interface Connectable {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

export type WebHandler = (request: Request) => Promise<Response>;

export interface HostOptions {
  /** Compress JSON response bodies with gzip when the client accepts it (the "JSON + gzip" variant). */
  gzip?: boolean;
}

type StockOptions = ConstructorParameters<typeof WebStandardStreamableHTTPServerTransport>[0];

/**
 * One SDK transport and one server instance per session, JSON responses, as the SDK's examples do. Returns
 * the session's transport, a new one for a request without a session id, or undefined for an unknown id.
 */
function stockSessions<T extends Transport>(create: (options: StockOptions) => T, makeServer: () => Connectable | Promise<Connectable>): (id: string | undefined) => Promise<T | undefined> {
  const sessions = new Map<string, T>();
  return async (id) => {
    if (id) return sessions.get(id);
    const fresh = create({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: true,
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, fresh),
      onsessionclosed: (sessionId) => void sessions.delete(sessionId),
    });
    await (await makeServer()).connect(fresh);
    return fresh;
  };
}

/** After each reply: what the SDK's JSON-response mode keeps, released unless measuring it as published. */
function afterStockReply(transport: object): void {
  if (!sdkAsPublished()) releaseAnsweredJsonStreams(transport);
}

/** The stock SDK's Streamable HTTP transport, web-standard flavour (Request in, Response out). */
export async function stockSessionHandler(makeServer: () => Connectable | Promise<Connectable>): Promise<WebHandler> {
  // Loaded here, not at the top: only the stock variants' servers need the SDK's server transports.
  const { WebStandardStreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js');
  const transportFor = stockSessions((options) => new WebStandardStreamableHTTPServerTransport(options), makeServer);
  return async (request) => {
    const transport = await transportFor(request.headers.get('mcp-session-id') ?? undefined);
    if (!transport) return new Response('unknown session', { status: 404 });
    const response = await transport.handleRequest(request);
    afterStockReply(transport);
    return response;
  };
}

/**
 * The stock SDK served the way its users run it: on Node, its StreamableHTTPServerTransport on node:http
 * (one per session, JSON responses); on Bun, its web-standard transport on Bun.serve. Returns the port.
 */
export async function listenStock(makeServer: () => Connectable | Promise<Connectable>): Promise<number> {
  const bun = (globalThis as { Bun?: { serve(options: object): { port: number } } }).Bun;
  if (bun) return bun.serve({ hostname: '127.0.0.1', port: 0, idleTimeout: 0, fetch: await stockSessionHandler(makeServer) }).port;
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const transportFor = stockSessions((options) => new StreamableHTTPServerTransport(options), makeServer);
  const server = createServer((req, res) => {
    void (async () => {
      const id = req.headers['mcp-session-id'];
      const transport = await transportFor(typeof id === 'string' ? id : undefined);
      if (!transport) return void res.writeHead(404).end('unknown session');
      await transport.handleRequest(req, res);
      afterStockReply(transport);
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
  // As a gzip proxy in front of an identity server: the proxy codes, so the server behind it is asked for none
  // (the handler would otherwise code replies itself for a request it cannot tell came over loopback).
  if (options.gzip) headers.delete('accept-encoding');
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && chunks.length > 0;
  const request = new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
    method: req.method,
    headers,
    body: hasBody ? Buffer.concat(chunks) : undefined,
  });
  const response = await handler(request);
  const type = response.headers.get('content-type') ?? '';
  const compress = options.gzip && type.includes('application/json') && !response.headers.has('content-encoding') && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  if (!response.body || !compress) return writeResponse(res, response);
  const outHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    outHeaders[name] = value;
  });
  const body = gzipSync(Buffer.from(await response.arrayBuffer()));
  outHeaders['content-encoding'] = 'gzip';
  outHeaders['vary'] = 'accept-encoding';
  outHeaders['content-length'] = String(body.length);
  res.writeHead(response.status, outHeaders);
  res.end(body);
}

/** Writes a web Response to node:http as a generic host would: an event stream as it comes, any other body whole. */
async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const type = headers['content-type'] ?? '';
  if (!response.body || !(type.startsWith('text/event-stream') || type.startsWith(MSGPACK_STREAM_MEDIA_TYPE))) {
    const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
    if (body) headers['content-length'] = String(body.length);
    res.writeHead(response.status, headers);
    res.end(body);
    return;
  }
  res.writeHead(response.status, headers);
  res.flushHeaders();
  // A client that goes away ends the pipeline, which cancels the stream and so releases the transport's state for it.
  await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), res).catch(() => res.destroy());
}
