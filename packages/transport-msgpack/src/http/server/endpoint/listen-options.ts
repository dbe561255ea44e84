/** Where listenNode and listenBun serve a handler. */
export interface ListenOptions {
  /** Interface to bind. Default 127.0.0.1: loopback only, with DNS-rebinding checks on. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Path of the MCP endpoint. Default /mcp. */
  path?: string;
  /**
   * listenNode only (node:http), so that idle and slow clients cannot hold connections for long; 0 turns
   * one off. A request's headers must arrive within headersTimeoutMs (default 10 s), the whole request
   * within requestTimeoutMs (default 30 s); a connection with no bytes either way for idleTimeoutMs
   * (default 60 s; reply streams send a keep-alive every 15 s) is closed, an idle keep-alive connection
   * after keepAliveTimeoutMs (default 5 s); past maxConnections (default 1,000) new ones are dropped.
   */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  idleTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
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
