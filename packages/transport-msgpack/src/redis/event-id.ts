/**
 * Event ids are `{streamId}:{entryId}`: the MCP stream, then the Redis stream entry id (`ms-seq`), which
 * never holds a colon, so stream ids may (the GET stream's does: `_GET_stream:{sessionId}`).
 */
const ENTRY_ID = /^\d{1,20}-\d{1,20}$/;
/** Longer ids are refused before they reach Redis: a client sends them back in Last-Event-ID. */
const MAX_EVENT_ID_LENGTH = 512;

export function eventIdOf(streamId: string, entryId: string): string {
  return `${streamId}:${entryId}`;
}

/** The parts of an event id, or undefined if it cannot be one of this store's. */
export function parseEventId(eventId: string): { streamId: string; entryId: string } | undefined {
  if (eventId.length > MAX_EVENT_ID_LENGTH) return undefined;
  const colon = eventId.lastIndexOf(':');
  if (colon < 1) return undefined;
  const entryId = eventId.slice(colon + 1);
  return ENTRY_ID.test(entryId) ? { streamId: eventId.slice(0, colon), entryId } : undefined;
}
