// Serving a handler on Bun: Bun.serve, with the Bun adapter.
import type { WebMcpHttpHandler } from '../server/endpoint/handler.js';
import { bunServeResponse } from './bun-adapter.js';
import { DEFAULT_LISTEN_HOST, DEFAULT_MCP_PATH, type ListenOptions } from '../server/endpoint/listen-options.js';

interface BunServer {
  port: number;
  stop(closeActiveConnections?: boolean): void | Promise<void>;
}
interface BunGlobal {
  serve(options: {
    hostname: string;
    port: number;
    idleTimeout?: number;
    fetch(req: Request): Response | Promise<Response>;
  }): BunServer;
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
  const server = bun.serve({
    hostname: host,
    port: options.port ?? 0,
    // Bun closes connections idle for 10 s by default, which would cut long-lived streams.
    idleTimeout: 0,
    fetch: (req) => {
      // Bun joins repeated Host lines with a comma, which no host holds: refused as Node's parser does.
      if (req.headers.get('host')?.includes(',')) return new Response('Bad Request: more than one Host header', { status: 400 });
      if (pathOf(req.url) !== path) return new Response('Not Found', { status: 404 });
      return handler.handle(req, { localAddress: host }).then(bunServeResponse);
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
