// mcp-msgpack-transport/redis: the Redis event store. The only module that loads the optional `redis` peer.
export { RedisEventStore, STREAM_LOST_ERROR_CODE, type RedisEventStoreOptions } from './event-store.js';
export { reconnectWithBackoff, type RedisClientLike, type RedisClusterClient, type RedisSingleClient } from './client.js';
export { EventStoreUnavailableError, StreamNotResumableError } from '../http/server/exchange/shared-event-store.js';
export type { SharedEventStore, FollowedStream, FollowedEventSend } from '../http/server/exchange/shared-event-store.js';
