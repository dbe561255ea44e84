/**
 * The parts of the project that other packages provide and that may not be built yet (the HTTP transport,
 * the filesystem media server, native bytes). Loaded lazily so the benchmark runs whatever is available
 * and says what it skipped.
 */
import { gzipSync } from 'node:zlib';
import type { Connectable, WebHandler } from './http-host.js';

type Module = Record<string, unknown>;

async function load(name: string): Promise<Module | undefined> {
  try {
    return (await import(name)) as Module;
  } catch {
    return undefined;
  }
}

/** The media server; `nativeBytes` when it runs on our transports, whose adapter can send media as bin. */
export async function createMediaServer(dir: string, nativeBytes: boolean): Promise<Connectable> {
  const media = await load('mcp-filesystem-media-server');
  const resolve = media?.resolveAllowedDirectories as ((dirs: string[]) => Promise<unknown>) | undefined;
  const create = media?.createFilesystemServer as ((options: unknown) => Connectable) | undefined;
  if (typeof create !== 'function' || typeof resolve !== 'function') throw new Error('mcp-filesystem-media-server does not export createFilesystemServer');
  return create({ allowedDirectories: await resolve([dir]), log: () => {}, nativeBytes });
}

/**
 * Our Streamable HTTP handler (both wires at one URL), with single-body replies like the stock variant; or,
 * with `defaults`, on its default options (replies on streams), as a user who adopts it runs it.
 */
async function oursHandler(
  factory: () => Connectable | Promise<Connectable>,
  nativeBytes: boolean,
  encoding?: string,
  defaults = false,
  compression?: boolean,
): Promise<{ transport: Module; handler: OurHandler }> {
  const transport = await load('mcp-msgpack-transport');
  const Handler = transport?.McpHttpHandler as (new (options: Record<string, unknown>) => OurHandler) | undefined;
  if (typeof Handler !== 'function') throw new Error('the MessagePack HTTP transport is not available yet');
  // Left out (not false), nativeBytes still gives the server an adapter that swaps placeholders for base64.
  return {
    transport: transport!,
    handler: new Handler({
      createServer: factory,
      ...(defaults ? {} : { enableJsonResponse: true }),
      ...(nativeBytes ? { nativeBytes: true } : {}),
      ...(encoding ? { encoding } : {}),
      ...(compression !== undefined ? { compression } : {}),
    }),
  };
}

/** What listenNode and listenBun call on a handler. */
interface OurHandler {
  handle(request: Request, options?: unknown): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The handler with every JSON reply gzipped at level 6 when the client takes gzip, in this process: what a
 * proxy in front of the server adds (nginx's and most middleware's level), at the least CPU one could spend
 * (no second process, no second parse of the HTTP exchange), so the compression venue's baseline is not inflated;
 * its headers are the server's, with Content-Encoding, the coded length and a Vary that still holds.
 */
function gzippedAtLevel6(inner: OurHandler): OurHandler {
  return {
    close: () => inner.close(),
    handle: async (request, options) => {
      const takesGzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
      const response = await inner.handle(request, options);
      if (!takesGzip || response.body === null || !(response.headers.get('content-type') ?? '').includes('application/json')) return response;
      const body = gzipSync(new Uint8Array(await response.arrayBuffer()), { level: 6 });
      const headers = new Headers(response.headers);
      headers.set('content-encoding', 'gzip');
      headers.set('content-length', String(body.byteLength));
      // As a proxy that codes replies must (nginx's gzip_vary appends a Vary line): the server's own Vary
      // (SPEC 9.2: Accept, Content-Type) stays, with Accept-Encoding named. Replacing it with Accept-Encoding
      // alone made the baseline 22 bytes a reply smaller than any correct proxy, and wrong for caches.
      const vary = headers.get('vary');
      if (vary === null) headers.set('vary', 'Accept-Encoding');
      else if (!/\baccept-encoding\b/i.test(vary)) headers.set('vary', `${vary}, Accept-Encoding`);
      return new Response(body, { status: response.status, headers });
    },
  };
}

/** Our handler as a web-standard handler (for the generic host). */
export async function oursHttpHandler(factory: () => Connectable | Promise<Connectable>, nativeBytes: boolean): Promise<WebHandler> {
  const { handler } = await oursHandler(factory, nativeBytes);
  return (request) => handler.handle(request);
}

/**
 * Our handler served the way this project's README tells users to serve it: listenNode (node:http with the
 * handler's own Node adapter) on Node, listenBun (Bun.serve) on Bun. Returns the port.
 */
export async function listenOurs(factory: () => Connectable | Promise<Connectable>, nativeBytes: boolean, encoding?: string, defaults = false, compression?: 'on' | 'off' | 'gzip6'): Promise<number> {
  const { transport, handler: ours } = await oursHandler(factory, nativeBytes, encoding, defaults, compression === undefined ? undefined : compression === 'on');
  // gzip6: the handler's own compression off, gzip 6 added around it.
  const handler = compression === 'gzip6' ? gzippedAtLevel6(ours) : ours;
  const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';
  const listenFn = (isBun ? transport.listenBun : transport.listenNode) as (h: unknown) => Promise<{ url: URL }>;
  const running = await listenFn(handler);
  return Number(running.url.port);
}

/** Whether the media server package is built and exports what the media venue needs. */
export async function mediaServerAvailable(): Promise<boolean> {
  const media = await load('mcp-filesystem-media-server');
  return typeof media?.createFilesystemServer === 'function';
}

/** Whether the transport package exports its HTTP transport yet. */
export async function httpTransportAvailable(): Promise<boolean> {
  const transport = await load('mcp-msgpack-transport');
  return typeof transport?.McpHttpHandler === 'function' && typeof transport?.HttpMsgpackClientTransport === 'function';
}
