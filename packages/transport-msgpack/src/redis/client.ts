// RESP's blob-string type ('$', 36 in the redis client's RESP_TYPES), said here rather than imported, so that
// mcp-msgpack-transport/redis loads without the optional `redis` peer: the application makes the client.
const RESP_TYPES = { BLOB_STRING: 36 } as const;

export type RedisArgument = string | Buffer;

/** A client of the official `redis` package (v5 or v6), as the store uses it: raw commands, pipelines. */
export interface RedisSingleClient {
  sendCommand(args: readonly RedisArgument[]): Promise<unknown>;
  multi(): { addCommand(args: readonly RedisArgument[]): unknown; execAsPipeline(): Promise<unknown[]> };
  withTypeMapping(mapping: { [RESP_TYPES.BLOB_STRING]: typeof Buffer }): RedisSingleClient;
  readonly isReady?: boolean;
  on?(event: 'error', listener: (error: Error) => void): unknown;
}

/** The same package's cluster client (`createCluster`): every command names the key that routes it. */
export interface RedisClusterClient {
  sendCommand(firstKey: RedisArgument | undefined, isReadonly: boolean | undefined, args: readonly RedisArgument[]): Promise<unknown>;
  withTypeMapping(mapping: { [RESP_TYPES.BLOB_STRING]: typeof Buffer }): RedisClusterClient;
  readonly masters: readonly unknown[];
  readonly isReady?: boolean;
  on?(event: 'error', listener: (error: Error) => void): unknown;
}

/** What the store needs: a connected client or cluster client of the official `redis` package. */
export type RedisClientLike = RedisSingleClient | RedisClusterClient;

/** Commands as the store sends them: each names the key it routes by (a cluster needs it; one Redis ignores it). */
export interface RedisCommands {
  send(key: string | undefined, args: readonly RedisArgument[]): Promise<unknown>;
  /** Several commands on one key (so one slot), written at once: no MULTI, no transaction to pay for. */
  pipeline(key: string, commands: readonly (readonly RedisArgument[])[]): Promise<unknown[]>;
  /** False while the client is disconnected (reconnecting): a command would only wait in its offline queue. */
  readonly connected: boolean;
}

function isCluster(client: RedisClientLike): client is RedisClusterClient {
  return 'masters' in client;
}

/**
 * The client's commands with every bulk string read as a Buffer instead of UTF-8 text, so a stored
 * MessagePack payload comes back byte for byte (the client's RESP type mapping).
 */
export function binaryCommands(client: RedisClientLike): RedisCommands {
  const connected = () => client.isReady !== false;
  if (isCluster(client)) {
    const binary = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
    return {
      send: (key, args) => binary.sendCommand(key, false, args),
      // Each command on its own, not a MULTI: the cluster client follows a MOVED or ASK redirection (a
      // failover, a resharding) for a command, not for a pipeline. Same key, same node: the client writes
      // them back to back on one connection, in order, so they still travel as one pipeline.
      pipeline: (key, commands) => Promise.all(commands.map((args) => binary.sendCommand(key, false, args))),
      get connected() {
        return connected();
      },
    };
  }
  const binary = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
  return {
    send: (_key, args) => binary.sendCommand(args),
    pipeline: (_key, commands) => {
      const multi = binary.multi();
      for (const args of commands) multi.addCommand(args);
      return multi.execAsPipeline();
    },
    get connected() {
      return connected();
    },
  };
}

/**
 * A reconnect strategy for the `redis` client (`socket.reconnectStrategy`): exponential backoff from 50 ms,
 * capped at 1 s, plus up to 100 ms of jitter so instances do not reconnect in step; it never gives up
 * (the client's default gives up on a socket timeout, and waits up to 2.2 s between tries).
 */
export function reconnectWithBackoff(retries: number): number {
  return Math.min(50 * 2 ** Math.min(retries, 10), 1_000) + Math.floor(Math.random() * 100);
}
