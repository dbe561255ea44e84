// Serving a handler on Bun: Bun.serve, with the Bun adapter.
import { afterBody, type WebMcpHttpHandler } from '../server/endpoint/handler.js';
import { bunServeResponse } from './bun-adapter.js';
import { DEFAULT_CONNECTION_LIMITS, DEFAULT_LISTEN_HOST, DEFAULT_MCP_PATH, type ListenOptions } from '../server/endpoint/listen-options.js';
import { MSGPACK_STREAM_MEDIA_TYPE, SSE_MEDIA_TYPE, mediaTypeEssence } from '../media.js';

interface BunServer {
  port: number;
  stop(closeActiveConnections?: boolean): void | Promise<void>;
  /** Sets this request's connection idle timeout, in seconds (0: none). */
  timeout(req: Request, seconds: number): void;
}
interface BunGlobal {
  serve(options: { hostname: string; port: number; idleTimeout?: number; fetch(req: Request, server: BunServer): Response | Promise<Response> }): BunServer;
}

export interface RunningBunServer {
  url: URL;
  close(): Promise<void>;
}

/** Starts Bun.serve for the handler (Bun only), on loopback unless told otherwise. */
export async function listenBun(handler: WebMcpHttpHandler, options: ListenOptions = {}): Promise<RunningBunServer> {
  const bun = (globalThis as { Bun?: BunGlobal }).Bun;
  if (!bun) throw new Error('listenBun needs the Bun runtime');
  const host = options.host ?? DEFAULT_LISTEN_HOST;
  const path = options.path ?? DEFAULT_MCP_PATH;
  const idleTimeout = bunIdleTimeoutSeconds(options.idleTimeoutMs);
  const server = bun.serve({
    hostname: host,
    port: options.port ?? 0,
    idleTimeout,
    fetch: (req, served) => {
      // Bun joins repeated Host lines with a comma, which no host holds: refused as Node's parser does.
      if (req.headers.get('host')?.includes(',')) return new Response('Bad Request: more than one Host header', { status: 400 });
      if (pathOf(req.url) !== path) return new Response('Not Found', { status: 404 });
      return handler.handle(req, { localAddress: host }).then((response) => {
        // Bun.serve's idleTimeout cuts a stream that is writing (Bun 1.4.5): a stream is exempt while it
        // lasts, and its connection gets the timeout back when it ends (an exemption would otherwise stay
        // with the connection for good).
        if (!isStream(response) || idleTimeout === 0) return bunServeResponse(response);
        served.timeout(req, 0);
        return bunServeResponse(afterBody(response, () => restoreTimeout(served, req, idleTimeout)));
      });
    },
  });
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: new URL(`http://${shownHost}:${server.port}${path}`),
    close: async () => {
      await handler.close();
      await server.stop(true);
    },
  };
}

/** Bun.serve's idleTimeout (whole seconds, at most 255, 0 for none) for listenNode's idleTimeoutMs option. */
function bunIdleTimeoutSeconds(option: number | undefined): number {
  const ms = option ?? DEFAULT_CONNECTION_LIMITS.idleTimeoutMs;
  if (!(ms > 0) || ms === Infinity) return 0;
  return Math.min(MAX_BUN_IDLE_TIMEOUT_S, Math.max(1, Math.ceil(ms / 1000)));
}

/** The largest idleTimeout Bun.serve accepts. */
const MAX_BUN_IDLE_TIMEOUT_S = 255;

function restoreTimeout(served: BunServer, req: Request, seconds: number): void {
  try {
    served.timeout(req, seconds);
  } catch {
    // The connection is gone already: nothing to restore.
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
