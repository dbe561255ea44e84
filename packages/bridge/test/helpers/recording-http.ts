import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One HTTP exchange as the server saw it: what came in and what went out, bytes included. */
export interface Exchange {
  method: string;
  requestType: string;
  responseType: string;
  status: number;
  sessionId: string | undefined;
  /** SEP-2243's routing header (2026-07-28 requests). */
  mcpMethod: string | undefined;
  bytesIn: number;
  bytesOut: number;
  body: Buffer;
}

export interface RecordingServer {
  url: URL;
  exchanges: Exchange[];
  /** Bytes read and written on every connection so far, headers included: the network leg's total. */
  socketBytes(): number;
  close(): Promise<void>;
}

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/**
 * A node:http server on a free loopback port that hands every request to `handle` and records the exchange:
 * the wire the tests assert (MessagePack or JSON, native bytes or base64) and the bytes a measurement counts.
 * Response bodies are kept up to `keepBytes` each.
 */
export async function startRecordingServer(handle: NodeHandler, keepBytes = 16 << 20): Promise<RecordingServer> {
  const exchanges: Exchange[] = [];
  const server = createServer((req, res) => {
    const exchange: Exchange = {
      method: req.method ?? '',
      requestType: req.headers['content-type'] ?? '',
      responseType: '',
      status: 0,
      sessionId: req.headers['mcp-session-id'] as string | undefined,
      mcpMethod: req.headers['mcp-method'] as string | undefined,
      // From the header: listening to the body here would take it from the handler.
      bytesIn: Number(req.headers['content-length'] ?? 0),
      bytesOut: 0,
      body: Buffer.alloc(0),
    };
    exchanges.push(exchange);
    const chunks: Buffer[] = [];
    let kept = 0;
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    const note = (chunk: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
      exchange.bytesOut += bytes.length;
      if (kept < keepBytes) {
        chunks.push(bytes);
        kept += bytes.length;
      }
      exchange.body = Buffer.concat(chunks);
    };
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      note(chunk);
      return write(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      exchange.status = res.statusCode;
      if (!exchange.responseType) exchange.responseType = String(res.getHeader('content-type') ?? '');
      note(chunk);
      return end(chunk, ...rest);
    }) as typeof res.end;
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    res.writeHead = ((...args: unknown[]) => {
      const result = writeHead(...args);
      exchange.status = res.statusCode;
      exchange.responseType = String(res.getHeader('content-type') ?? contentTypeIn(args) ?? '');
      return result;
    }) as typeof res.writeHead;
    Promise.resolve(handle(req, res)).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
      else res.destroy();
    });
  });
  const sockets = new Set<Socket>();
  let closedBytes = 0;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      closedBytes += socket.bytesRead + socket.bytesWritten;
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    exchanges,
    socketBytes: () => closedBytes + [...sockets].reduce((sum, socket) => sum + socket.bytesRead + socket.bytesWritten, 0),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function contentTypeIn(args: unknown[]): string | undefined {
  for (const arg of args) {
    if (arg && typeof arg === 'object' && !Array.isArray(arg)) {
      for (const [name, value] of Object.entries(arg)) if (name.toLowerCase() === 'content-type') return String(value);
    }
  }
  return undefined;
}
