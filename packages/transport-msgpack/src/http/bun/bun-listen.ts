// Serving a handler on Bun: Bun.serve, with the Bun adapter.
import type { WebMcpHttpHandler } from '../server/handler.js';
import { bunServeResponse } from './bun-adapter.js';
import { BodyDeadline, bunLimits, requestTimedOut, tooManyInFlight } from './bun-limits.js';
import { DEFAULT_LISTEN_HOST, DEFAULT_MCP_PATH, type ListenOptions } from '../server/listen-options.js';
import { MSGPACK_STREAM_MEDIA_TYPE, SSE_MEDIA_TYPE, mediaTypeEssence } from '../media.js';

interface BunServer {
  port: number;
  /** Requests Bun.serve has not finished answering, this one included (reply streams until they end). */
  readonly pendingRequests: number;
  stop(closeActiveConnections?: boolean): void | Promise<void>;
  /**
   * Sets the idle timeout of this request's connection, in seconds (0: none), until its next request,
   * which gets the server's idleTimeout again.
   */
  timeout(req: Request, seconds: number): void;
  /** The peer's address of this request's connection (null once it is gone). */
  requestIP(req: Request): { address: string } | null;
}
interface BunGlobal {
  serve(options: { hostname: string; port: number; idleTimeout?: number; fetch(req: Request, server: BunServer): Response | Promise<Response> }): BunServer;
}

export interface RunningBunServer {
  url: URL;
  close(): Promise<void>;
}

/**
 * Starts Bun.serve for the handler (Bun only), on loopback unless told otherwise, with the connection
 * limits Bun.serve's API allows (ListenOptions says which, and how they differ from listenNode's).
 */
export async function listenBun(handler: WebMcpHttpHandler, options: ListenOptions = {}): Promise<RunningBunServer> {
  const bun = (globalThis as { Bun?: BunGlobal }).Bun;
  if (!bun) throw new Error('listenBun needs the Bun runtime');
  const host = options.host ?? DEFAULT_LISTEN_HOST;
  const path = options.path ?? DEFAULT_MCP_PATH;
  const limits = bunLimits(options);
  // Between requests a connection waits keepAliveTimeoutMs; the next request gets idleTimeout back.
  const betweenRequests = limits.keepAliveTimeoutS || limits.idleTimeoutS;
  const server = bun.serve({
    hostname: host,
    port: options.port ?? 0,
    idleTimeout: limits.idleTimeoutS,
    fetch: (req, served) => {
      if (limits.maxInFlight > 0 && served.pendingRequests > limits.maxInFlight) return tooManyInFlight(req);
      // Bun joins repeated Host lines with a comma, which no host holds: refused as Node's parser does.
      if (req.headers.get('host')?.includes(',')) return answered(req, served, new Response('Bad Request: more than one Host header', { status: 400 }));
      if (pathOf(req.url) !== path) return answered(req, served, new Response('Not Found', { status: 404 }));
      return serve(req, served);
    },
  });
  /**
   * The address a request arrived on, for the loopback checks (Host, Origin; SPEC.md 9.4): the bound address,
   * unless that is every address (`0.0.0.0`, `::`). Bun.serve does not tell the local address of a request,
   * but a connection arrives on loopback exactly when it comes from a loopback address, so the peer's stands in.
   */
  const boundToEvery = host === '0.0.0.0' || host === '::' || host === '[::]';
  function arrivalAddress(req: Request, served: BunServer): string {
    if (!boundToEvery) return host;
    try {
      return served.requestIP(req)?.address ?? host;
    } catch {
      return host; // the connection is gone already
    }
  }
  /** A short reply of listenBun's own: Bun.serve writes it at once, and the connection then waits. */
  function answered(req: Request, served: BunServer, response: Response): Response {
    if (betweenRequests !== limits.idleTimeoutS) setTimeoutOf(served, req, betweenRequests);
    return response;
  }
  async function serve(req: Request, served: BunServer): Promise<Response> {
    const deadline = limits.requestTimeoutMs > 0 && mayHaveBody(req) ? new BodyDeadline(req, limits.requestTimeoutMs) : undefined;
    let response = await handler.handle(deadline?.request ?? req, { localAddress: arrivalAddress(req, served) });
    deadline?.stop();
    if (deadline?.expired) {
      // The handler refused the body it could not read; the client is told why.
      void response.body?.cancel().catch(() => {});
      response = requestTimedOut(req);
    }
    // Bun.serve's idleTimeout cuts a stream that is writing (Bun 1.4.5): a stream is exempt while it
    // lasts. Once Bun.serve has the whole reply, the connection waits for its next request.
    const stream = isStream(response) && limits.idleTimeoutS !== 0;
    if (stream) served.timeout(req, 0);
    if (!stream && betweenRequests === limits.idleTimeoutS) return bunServeResponse(response);
    return bunServeResponse(response, () => setTimeoutOf(served, req, betweenRequests));
  }
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: new URL(`http://${shownHost}:${server.port}${path}`),
    close: async () => {
      await handler.close();
      await server.stop(true);
    },
  };
}

/** Not `req.body !== null`: on Bun, reading `req.body` makes a JavaScript stream of it, which a whole read then skips. */
const mayHaveBody = (req: Request): boolean => req.method !== 'GET' && req.method !== 'HEAD';

function setTimeoutOf(served: BunServer, req: Request, seconds: number): void {
  try {
    served.timeout(req, seconds);
  } catch {
    // The connection is gone already.
  }
}

function isStream(response: Response): boolean {
  const type = mediaTypeEssence(response.headers.get('content-type'));
  return type === SSE_MEDIA_TYPE || type === MSGPACK_STREAM_MEDIA_TYPE;
}

/**
 * The path of a request URL. Bun builds req.url from the Host header, and gives the bare path when that
 * header is not a plain host[:port] (`localhost:80@evil.com`); the handler then refuses the Host itself.
 */
function pathOf(url: string): string {
  // Not new URL(): it throws on hosts such as `localhost:99999`, which the handler must see to refuse.
  const authorityEnd = url.startsWith('/') ? 0 : url.indexOf('/', url.indexOf('://') + 3);
  if (authorityEnd < 0) return '/';
  return url.slice(authorityEnd).split('?', 1)[0]!;
}
