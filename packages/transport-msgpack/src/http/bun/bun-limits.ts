// listenBun's connection limits: what Bun.serve's API lets a server bound, from the same ListenOptions as
// listenNode. Bun.serve shows requests, never connections: the cap counts requests in flight, and the
// request deadline runs on the handler's read of the body.
import type { HttpRequestLike } from '../server/exchange/server-options.js';
import { refusalResponse } from '../server/exchange/responses.js';
import { TRANSPORT_ERROR } from '../../jsonrpc/error-codes.js';
import { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits, type ListenOptions } from '../server/listen-options.js';

/** The limits listenBun applies, Bun.serve's timeouts in its whole seconds (0: none). */
export interface BunLimits {
  idleTimeoutS: number;
  keepAliveTimeoutS: number;
  requestTimeoutMs: number;
  /** Requests in flight at most (0: no cap). */
  maxInFlight: number;
}

export function bunLimits(options: ListenOptions): BunLimits {
  const limit = <K extends keyof ConnectionLimits>(key: K): number => options[key] ?? DEFAULT_CONNECTION_LIMITS[key];
  return {
    idleTimeoutS: bunSeconds(limit('idleTimeoutMs')),
    keepAliveTimeoutS: bunSeconds(limit('keepAliveTimeoutMs')),
    requestTimeoutMs: finiteOrZero(limit('requestTimeoutMs')),
    maxInFlight: finiteOrZero(limit('maxConnections')),
  };
}

/** Bun.serve's timeouts are whole seconds, at most 255, 0 for none. */
function bunSeconds(ms: number): number {
  const limit = finiteOrZero(ms);
  return limit === 0 ? 0 : Math.min(MAX_BUN_TIMEOUT_S, Math.max(1, Math.ceil(limit / 1000)));
}

const finiteOrZero = (value: number): number => (value > 0 && value !== Infinity ? value : 0);

/** The largest idleTimeout Bun.serve accepts. */
const MAX_BUN_TIMEOUT_S = 255;

/** What a client is told to wait before it asks again past the cap: requests end quickly, streams do not. */
const IN_FLIGHT_RETRY_AFTER_S = 1;

/** The answer past maxConnections: 503, in the client's wire, and the connection closed. */
export function tooManyInFlight(req: HttpRequestLike): Response {
  return refusalResponse(req, {
    status: 503,
    code: TRANSPORT_ERROR,
    message: 'Service Unavailable: too many requests in flight',
    data: { reason: 'too-many-in-flight' },
    headers: { 'Retry-After': String(IN_FLIGHT_RETRY_AFTER_S), Connection: 'close' },
  });
}

/** The answer to a request whose body did not arrive in time: 408, and the connection closed. */
export function requestTimedOut(req: HttpRequestLike): Response {
  return refusalResponse(req, {
    status: 408,
    code: TRANSPORT_ERROR,
    message: 'Request Timeout: the request body did not arrive within requestTimeoutMs',
    data: { reason: 'request-timeout' },
    headers: { Connection: 'close' },
  });
}

/**
 * A deadline on reading a request's body: `request` is the request with a body that, past the deadline,
 * fails for its reader (so the handler refuses it and runs nothing; a body cut short is never taken for a
 * whole one), and `expired` says so afterwards. The timer stops once the body has been read whole. The body
 * is read either way the handler asks: whole (arrayBuffer(), Bun's native read, when Content-Length bounds
 * it) or chunk by chunk; `req.body` is not touched before, since on Bun that alone makes a JavaScript stream.
 */
export class BodyDeadline {
  readonly request: HttpRequestLike;
  private expiredFlag = false;
  private readonly timer: ReturnType<typeof setTimeout>;
  /** Ends the read in progress when the deadline passes. */
  private abandon: (() => void) | undefined;

  constructor(req: Request, ms: number) {
    this.timer = setTimeout(() => {
      this.expiredFlag = true;
      // A read that waits for a byte that is not coming ends now, and its reader sees it fail.
      this.abandon?.();
    }, ms);
    const self = this;
    this.request = {
      method: req.method,
      url: req.url,
      headers: req.headers,
      signal: req.signal,
      arrayBuffer: () => this.readWhole(req),
      get body() {
        return req.body === null ? null : self.chunks(req.body);
      },
    };
  }

  get expired(): boolean {
    return this.expiredFlag;
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private readWhole(req: Request): Promise<ArrayBuffer> {
    if (this.expiredFlag) return Promise.reject(new Error('Request Timeout'));
    return new Promise((resolve, reject) => {
      this.abandon = () => reject(new Error('Request Timeout'));
      req.arrayBuffer().then((bytes) => {
        this.stop();
        resolve(bytes);
      }, reject);
    });
  }

  private chunks(body: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
    const self = this;
    return {
      async *[Symbol.asyncIterator]() {
        if (self.expiredFlag) throw new Error('Request Timeout');
        const reader = body.getReader();
        self.abandon = () => void reader.cancel().catch(() => {});
        let finished = false;
        try {
          while (true) {
            const { done, value } = await reader.read();
            if (self.expiredFlag) throw new Error('Request Timeout');
            if (done) break;
            yield value;
          }
          finished = true;
          self.stop();
        } finally {
          // Left early (too large, timed out): the rest is not wanted.
          if (!finished) void reader.cancel().catch(() => {});
        }
      },
    };
  }
}
