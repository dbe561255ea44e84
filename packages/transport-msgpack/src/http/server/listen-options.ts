/** Where listenNode and listenBun serve a handler. */
export interface ListenOptions {
  /** Interface to bind. Default 127.0.0.1: loopback only, with DNS-rebinding checks on. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Path of the MCP endpoint. Default /mcp. */
  path?: string;
}

/** Loopback unless told otherwise: an MCP server reachable from the network is a choice, not a default. */
export const DEFAULT_LISTEN_HOST = '127.0.0.1';
export const DEFAULT_MCP_PATH = '/mcp';
