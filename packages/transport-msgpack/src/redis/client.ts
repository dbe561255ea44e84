// RESP's blob-string type ('$', 36 in the redis client's RESP_TYPES), said here rather than imported, so that
// mcp-msgpack-transport/redis loads without the optional `redis` peer: the application makes the client.
const RESP_TYPES = { BLOB_STRING: 36 } as const;

export type RedisArgument = string | Buffer;

/** The commands the store sends, raw (bulk strings come back as Buffers: see binaryClient). */
export interface RedisCommands {
  sendCommand(args: readonly RedisArgument[]): Promise<unknown>;
  multi(): RedisMulti;
}

export interface RedisMulti {
  addCommand(args: readonly RedisArgument[]): RedisMulti;
  execAsPipeline(): Promise<unknown[]>;
}

/** What the store needs of a client from the official `redis` package (v5 or v6): connected, not closed by the store. */
export interface RedisClientLike extends RedisCommands {
  withTypeMapping(mapping: { [RESP_TYPES.BLOB_STRING]: typeof Buffer }): RedisCommands;
}

/**
 * The same connection with every bulk string read as a Buffer instead of UTF-8 text, so a stored
 * MessagePack payload comes back byte for byte (the client's RESP type mapping).
 */
export function binaryClient(client: RedisClientLike): RedisCommands {
  return client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
}
