import { giveBackAll, giveBackWhenWritten, writesCopyOut } from '../../buffers/lent-bytes.js';
import { pooledUtf8 } from '../../buffers/pooled-text.js';
import { inMemoryBody } from '../server/exchange/responses.js';
import { LazyBodyResponse, dropBody, untouchedHeaders } from '../server/exchange/lazy-response.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BodyChunks, HttpHandleOptions, HttpRequestLike } from '../server/exchange/server-options.js';
import type { AuthInfo } from '../../mcp/types.js';
import { MSGPACK_STREAM_MEDIA_TYPE, SSE_MEDIA_TYPE, mediaTypeEssence } from '../media.js';

/** Chunks buffered before the request is paused: the reader drives the pace. */
const HIGH_WATER_CHUNKS = 16;

/**
 * A light view of a node request for the web-standard core: no Request object, no stream conversion.
 * `body` is read on demand; leaving it early stops reading without destroying the socket, so a 413 can
 * still be written (with `Connection: close`, after which node drops the unread rest).
 */
export function nodeRequest(req: IncomingMessage, res?: ServerResponse): HttpRequestLike {
  const raw = req.headers;
  const headers = {
    get(name: string): string | null {
      const value = raw[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
    *entries(): IterableIterator<[string, string]> {
      for (const [name, value] of Object.entries(raw)) {
        if (value !== undefined) yield [name, Array.isArray(value) ? value.join(', ') : value];
      }
    },
  };
  const method = req.method ?? 'GET';
  let signal: AbortSignal | undefined;
  return {
    method,
    url: `http://${raw.host ?? 'localhost'}${req.url ?? '/'}`,
    headers,
    body: method === 'POST' ? requestChunks(req, continueOnRead(req, res)) : null,
    // Made on first use (a stream): most requests never ask.
    get signal() {
      if (res) signal ??= closedEarlySignal(res);
      return signal;
    },
    whenGone: res ? (gone) => watchClosedEarly(res, gone) : undefined,
  };
}

/** `gone` once the connection closes before the response was written whole (see closedEarlySignal); returns the unwatch. */
function watchClosedEarly(res: ServerResponse, gone: () => void): () => void {
  if (res.closed || res.socket?.destroyed) {
    queueMicrotask(gone);
    return () => {};
  }
  const onClose = () => res.writableFinished || gone();
  res.once('close', onClose);
  return () => res.off('close', onClose);
}

/**
 * Fires when the connection closes before the response was written whole: the client went away. A held
 * reply (SPEC.md 9.6.2) has written nothing, so only this tells it.
 */
function closedEarlySignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  if (res.closed || res.socket?.destroyed) controller.abort();
  else watchClosedEarly(res, () => controller.abort());
  return controller.signal;
}

/**
 * `Expect: 100-continue`: the client waits for `100 Continue` before it sends the body. It is written when
 * the body is first read, so only once every check on the headers passed (Host, Content-Type, session,
 * Content-Length against the cap): a request refused on its headers gets its refusal, not `100 Continue`
 * and then a refusal of a body it should never have sent. Takes effect where the server hands such
 * requests to the handler instead of answering 100 itself (listenNode does; see its checkContinue).
 */
function continueOnRead(req: IncomingMessage, res: ServerResponse | undefined): (() => void) | undefined {
  if (!res || req.headers.expect?.toLowerCase() !== '100-continue') return undefined;
  let sent = false;
  return () => {
    if (sent || res.headersSent) return;
    sent = true;
    res.writeContinue();
  };
}

function requestChunks(req: IncomingMessage, beforeFirstRead?: () => void): BodyChunks {
  return {
    [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
      beforeFirstRead?.();
      const queue: Uint8Array[] = [];
      let ended = false;
      let failure: Error | undefined;
      let wake: (() => void) | undefined;
      const onData = (chunk: Buffer) => {
        queue.push(chunk);
        if (queue.length >= HIGH_WATER_CHUNKS) req.pause();
        wake?.();
      };
      const onEnd = () => {
        ended = true;
        wake?.();
      };
      const onError = (error: Error) => {
        failure = error;
        wake?.();
      };
      const onClose = () => {
        if (!req.complete) failure ??= new Error('request body aborted by the client');
        wake?.();
      };
      const detach = () => {
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        req.off('close', onClose);
        req.pause();
      };
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', onError);
      req.on('close', onClose);
      return {
        async next(): Promise<IteratorResult<Uint8Array>> {
          for (;;) {
            const chunk = queue.shift();
            if (chunk) {
              if (queue.length < HIGH_WATER_CHUNKS && !ended) req.resume();
              return { value: chunk, done: false };
            }
            if (failure) {
              detach();
              throw failure;
            }
            if (ended) {
              detach();
              return { value: undefined, done: true };
            }
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
          }
        },
        async return(): Promise<IteratorResult<Uint8Array>> {
          detach();
          return { value: undefined, done: true };
        },
      };
    },
  };
}

/** A web-standard handler (Request-like in, Response out), as the transports and the endpoint have. */
export type WebHandle = (req: HttpRequestLike, options: HttpHandleOptions) => Promise<Response>;

/** Serves one node:http request with a web-standard handler: the request adapted in, the Response written out. */
export async function serveNodeRequest(handle: WebHandle, req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody?: unknown): Promise<void> {
  if (hostHeaders(req.rawHeaders) > 1) {
    // RFC 9112 section 3.2 (SPEC 9.4): node:http keeps the first of two Host headers and serves the request, so
    // the Host check would judge one value while a proxy in front may have routed by the other. Bun.serve
    // refuses such a request itself; here the adapter does, before the endpoint, with no JSON-RPC error.
    res.writeHead(400, { 'content-type': 'text/plain', connection: 'close' }).end('more than one Host header');
    return;
  }
  const response = await handle(nodeRequest(req, res), { parsedBody, authInfo: req.auth, localAddress: req.socket.localAddress });
  await writeNodeResponse(res, response);
}

/** How many Host headers a request came with (rawHeaders: name, value, name, value, ...). */
function hostHeaders(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].length === 4 && rawHeaders[i].toLowerCase() === 'host') count++;
  return count;
}

/**
 * Writes a web Response to a node ServerResponse. A stream is written as it is produced, with node's
 * backpressure; when the client goes away the stream is cancelled, which releases everything the
 * transport holds for it (keep-alive timer, stream mapping).
 */
export async function writeNodeResponse(res: ServerResponse, response: Response): Promise<void> {
  // A lazy reply's own record (responses.ts) when nobody read its headers: no Headers object to copy out of.
  const headers = untouchedHeaders(response) ?? headerRecord(response.headers);
  let inMemory = inMemoryBody(response);
  if (typeof inMemory === 'string') {
    // textResponse measured the length already; it is the UTF-8 length of this very text.
    const length = response instanceof LazyBodyResponse ? response.length : Number(headers['content-length'] ?? Buffer.byteLength(inMemory, 'utf8'));
    headers['content-length'] = String(length);
    // A large text goes out as lent bytes (pooled-text.ts), given back below once written.
    const pooled = writesCopyOut(res.socket) ? pooledUtf8(inMemory, length) : undefined;
    if (!pooled) {
      res.writeHead(response.status, headers);
      res.end(inMemory, 'utf8');
      dropBody(response);
      return;
    }
    inMemory = [pooled];
  }
  if (inMemory) {
    let length = 0;
    for (const piece of inMemory) length += piece.byteLength;
    headers['content-length'] = String(length);
    res.writeHead(response.status, headers);
    // Corked, the pieces (headers too) leave in one writev; end() uncorks.
    res.cork();
    for (const piece of inMemory) res.write(piece);
    // Lent bytes (NativeBytesPool, the encoder's spare) go back once the whole reply is in the kernel's hands.
    if (writesCopyOut(res.socket)) res.end(() => giveBackAll(inMemory));
    else res.end();
    // Nobody reads the body stream now: cancelling it tells wrappers (afterBody) that the body is done.
    dropBody(response);
    return;
  }
  const body = response.body;
  const type = mediaTypeEssence(response.headers.get('content-type'));
  if (!body || (type !== SSE_MEDIA_TYPE && type !== MSGPACK_STREAM_MEDIA_TYPE)) {
    const bytes = body ? new Uint8Array(await response.arrayBuffer()) : undefined;
    if (bytes) headers['content-length'] = String(bytes.byteLength);
    res.writeHead(response.status, headers);
    res.end(bytes);
    return;
  }
  res.writeHead(response.status, headers);
  res.flushHeaders();
  const copiesOut = writesCopyOut(res.socket);
  const reader = body.getReader();
  const onClose = () => void reader.cancel().catch(() => {});
  res.on('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value, giveBackWhenWritten(value, copiesOut))) await drainOrClose(res);
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', onClose);
  }
}

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

function drainOrClose(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
