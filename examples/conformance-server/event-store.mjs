// An EventStore that keeps the most recent events in memory, enough for a demo or a test run. A real
// deployment would use a shared store (Redis, a database) so any instance can replay a stream.
const MAX_EVENTS = 10_000;

export class MemoryEventStore {
  #events = new Map(); // eventId -> { streamId, message }, in insertion order
  #next = 0;

  async storeEvent(streamId, message) {
    const eventId = `${streamId}::${++this.#next}`;
    this.#events.set(eventId, { streamId, message });
    if (this.#events.size > MAX_EVENTS) this.#events.delete(this.#events.keys().next().value);
    return eventId;
  }

  async getStreamIdForEventId(eventId) {
    return this.#events.get(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId, { send }) {
    const last = this.#events.get(lastEventId);
    if (!last) return '';
    let after = false;
    for (const [eventId, event] of this.#events) {
      if (eventId === lastEventId) {
        after = true;
        continue;
      }
      // Priming events carry no message and are not replayed.
      if (after && event.streamId === last.streamId && event.message && 'jsonrpc' in event.message) await send(eventId, event.message);
    }
    return last.streamId;
  }
}
