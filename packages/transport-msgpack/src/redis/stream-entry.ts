/**
 * The fields of an entry of a stored stream (one Redis stream entry per event):
 *   o  id of the instance that stored it (its liveness key tells whether it still runs)
 *   m  the message, one msgpack-v1 payload (a priming event stores `{}`); a payload with large bins is
 *      stored in pieces, `m`, `m1`, `m2`, ... (the bins pieces of their own), joined in that order
 *   r  on a POST stream's first entry: the request ids it answers, a MessagePack array
 *   x  the stream's end: `complete` (its last response), `abandoned` (closed before replying) or
 *      `unresumable` (an event could not be stored: a resume from before it is refused)
 */
export const FIELD_OWNER = 'o';
export const FIELD_MESSAGE = 'm';
export const FIELD_REQUESTS = 'r';
export const FIELD_END = 'x';
export const END_COMPLETE = 'complete';
export const END_ABANDONED = 'abandoned';
export const END_UNRESUMABLE = 'unresumable';

export interface StoredEntry {
  id: string;
  owner?: string;
  message?: Buffer;
  /** Pieces of a message stored in several fields (m1, m2, ...), joined into `message` once read. */
  messageRest?: Buffer[];
  requests?: Buffer;
  end?: string;
}

/** Entries of an XRANGE reply read with bulk strings as Buffers (`[[id, [field, value, ...]], ...]`). */
export function readEntries(reply: unknown): StoredEntry[] {
  if (!Array.isArray(reply)) return [];
  const entries: StoredEntry[] = [];
  for (const item of reply) {
    if (!Array.isArray(item) || !Array.isArray(item[1])) continue;
    const entry: StoredEntry = { id: String(item[0]) };
    const fields = item[1] as unknown[];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const value = fields[i + 1];
      if (!Buffer.isBuffer(value)) continue;
      const name = String(fields[i]);
      if (name.length > 1 && name[0] === FIELD_MESSAGE) {
        (entry.messageRest ??= [])[Number(name.slice(1)) - 1] = value;
        continue;
      }
      switch (name) {
        case FIELD_OWNER:
          entry.owner = value.toString();
          break;
        case FIELD_MESSAGE:
          entry.message = value;
          break;
        case FIELD_REQUESTS:
          entry.requests = value;
          break;
        case FIELD_END:
          entry.end = value.toString();
          break;
      }
    }
    if (entry.messageRest && entry.message) entry.message = Buffer.concat([entry.message, ...entry.messageRest]);
    entries.push(entry);
  }
  return entries;
}
