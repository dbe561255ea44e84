/** Where listenNode and listenBun serve a handler. */
export interface ListenOptions {
  /** Interface to bind. Default 127.0.0.1: loopback only, with DNS-rebinding checks on. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Path of the MCP endpoint. Default /mcp. */
  path?: string;
  // Connection limits, the same options on both: 0 turns one off. Bun.serve checks its timeouts every 4 s,
  // so on Bun they fire up to 4 s late (a 2 s timeout closed a connection at 4 s).
  /**
   * A request's headers must arrive within this (default 10 s), else the connection is closed (node:http
   * answers 408). Bun: not settable; Bun.serve closes a new connection that has not sent whole headers
   * within 10 s itself (measured 12-13 s, no answer), and a kept-alive one after its keep-alive timeout.
   */
  headersTimeoutMs?: number;
  /**
   * The whole request must arrive within this (default 30 s): 408 and the connection closed. Bun: counted
   * from the end of the headers to the end of the body (Bun.serve shows a request only once its headers
   * are in); Bun.serve also closes, without an answer, a connection whose body brings less than 16 KiB a
   * second for idleTimeoutMs.
   */
  requestTimeoutMs?: number;
  /**
   * A connection with no bytes either way for this long is closed (default 60 s; reply streams send a
   * keep-alive every 15 s, so keep `keepAliveMs` below it). Bun: Bun.serve's idleTimeout, whole seconds up
   * to 255; reply streams are exempt while they last, since Bun.serve cuts a stream that is writing.
   */
  idleTimeoutMs?: number;
  /** An idle kept-alive connection is closed after this (default 5 s). Bun: whole seconds up to 255. */
  keepAliveTimeoutMs?: number;
  /**
   * The cap (default 1,000). Node: connections; at the cap a new connection closes the one that has waited
   * longest with no request in flight (silent, headers in part, or kept alive between requests) and takes its
   * slot, so a flood of connections that send no request locks no new client out; only when every
   * connection has a request in flight is a new one dropped unanswered. Bun: Bun.serve
   * shows no connections, so requests in flight (reply streams until they end) are counted, and past the
   * cap a request gets 503 with Retry-After: 1 and its connection is closed; connections without a
   * request are bounded in time only (headers within 10 s, keep-alive timeout), not in number.
   */
  maxConnections?: number;
}

/** The defaults of the connection limits above. */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_000,
};

export type ConnectionLimits = Required<Pick<ListenOptions, 'headersTimeoutMs' | 'requestTimeoutMs' | 'idleTimeoutMs' | 'keepAliveTimeoutMs' | 'maxConnections'>>;

/** Loopback unless told otherwise: an MCP server reachable from the network is a choice, not a default. */
export const DEFAULT_LISTEN_HOST = '127.0.0.1';
export const DEFAULT_MCP_PATH = '/mcp';
