/** What one side of a comparison is: which server, which transports, which wire. */
export interface VariantSpec {
  /** Short stable id used in results and ratios, e.g. "msgpack", "json", "stock-json". */
  id: string;
  /** Human label for tables. */
  label: string;
  transport: 'stdio' | 'http';
  /** Which server program: the bench tool server, the media server, or the official filesystem server. */
  server: 'tools' | 'media' | 'official' | 'tools-v2';
  /**
   * With server 'tools-v2' (an SDK v2 McpServer, SDK v2 Client): the MCP revision the client speaks, the
   * 2025-11-25 session path (initialize, Mcp-Session-Id) or 2026-07-28 (stateless, a server per request).
   */
  revision?: '2025-11-25' | '2026-07-28';
  /**
   * stock: the SDK's own transports on both sides; ours: mcp-msgpack-transport; raw: no MCP at all, length-
   * prefixed bytes through a pipe (servers/raw-media.ts), the floor the media venue compares against.
   */
  stack: 'stock' | 'ours' | 'raw';
  /** The wire our client speaks (stock is always JSON). */
  wire: 'json' | 'msgpack';
  /** Native bytes negotiated (media over MessagePack). */
  nativeBytes?: boolean;
  /** Over HTTP: the server gzips JSON replies. */
  gzip?: boolean;
  /**
   * Over HTTP, our server's per-message encoding policy for our MessagePack client (the transport's
   * `encoding` option): 'smallest' is MessagePack always, 'cheapest-cpu' picks per reply (the adaptive
   * variant). Left out: the transport's default. Over stdio, set on both sides: our client starts on 'auto'
   * (the wire upgrade, which turns the stream mixed) and each side sends per its policy (SPEC.md 7.4).
   */
  encoding?: 'cheapest-cpu' | 'smallest';
  /**
   * Our server and our client on their default options, as a user who adopts this package runs them (the
   * comparison with the stock client, issue 30): no `wire`, no `encoding`, and over HTTP no
   * `enableJsonResponse`, so tool results come on a reply stream. Media still turn native bytes on.
   */
  defaults?: boolean;
  /**
   * 'stock': the SDK's own client transport (JSON) against this variant's server, what a user keeps when only
   * the server adopts this package. Left out: the client of `stack`.
   */
  client?: 'stock';
  /**
   * The folder of another build's benchmark servers (its servers/entry.js), for --baseline: this variant's
   * server is that build's, its client this one's. Left out: this build's servers.
   */
  build?: string;
  /** Number of concurrent clients (HTTP); stdio always has one. */
  clients: number;
}

export interface ScenarioContext {
  /** Directory holding the media files (media venue). */
  mediaDir?: string;
}
