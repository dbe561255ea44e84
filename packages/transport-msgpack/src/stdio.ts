// `mcp-msgpack-transport/stdio`: the transports over a process's standard streams (drop-ins for the SDK's
// StdioServerTransport and StdioClientTransport). Node's streams and child processes: Node, Bun, Deno.
export { StdioMsgpackServerTransport, type StdioMsgpackServerOptions } from './stdio/server.js';
export { StdioMsgpackClientTransport, type StdioMsgpackServerParameters, type SpawnFunction } from './stdio/client.js';
export { JsonLineLimitError, STOCK_STDIO_LINE_CAP, DEFAULT_MAX_JSON_LINE_BYTES } from './stdio/server.js';
export { getDefaultEnvironment, DEFAULT_INHERITED_ENV_VARS } from './stdio/default-environment.js';
export type { StreamWireOptions } from './connection/stream-connection.js';
export type { WireChoice } from './wire-choice/wire-selection.js';
