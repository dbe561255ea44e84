/** One stream this instance stores into: its entries' sizes, oldest first, and when Redis forgets it. */
interface TrackedStream {
  ids: string[];
  sizes: number[];
  bytes: number;
  expiresAt: number;
}

/** How often expired streams are swept out of the ledger, at most. */
const SWEEP_MS = 1_000;

/**
 * The bytes this instance keeps in Redis, per stream and in all: what the byte budgets are checked against.
 * It mirrors what Redis holds of the streams this instance produces (entries trimmed by count or by bytes
 * leave it, streams leave it when their TTL runs out), without asking Redis.
 */
export class ByteLedger {
  private readonly streams = new Map<string, TrackedStream>();
  private total = 0;
  private sweptAt = 0;

  constructor(
    private readonly maxStreamBytes: number,
    private readonly maxStoreBytes: number,
    private readonly maxLength: number,
  ) {}

  /** The bytes of every stream this instance stored into that Redis still keeps. */
  get storedBytes(): number {
    this.sweep(performance.now());
    return this.total;
  }

  /** Whether `bytes` more fit under the store's budget. */
  fits(bytes: number): boolean {
    this.sweep(performance.now());
    return this.total + bytes <= this.maxStoreBytes;
  }

  /**
   * Records an entry stored with `ttlMs` left; returns the id of the oldest entry the stream may keep when
   * it went over its byte budget (the caller trims everything before it), else undefined.
   */
  add(streamId: string, entryId: string, bytes: number, ttlMs: number): string | undefined {
    let stream = this.streams.get(streamId);
    if (!stream) this.streams.set(streamId, (stream = { ids: [], sizes: [], bytes: 0, expiresAt: 0 }));
    stream.expiresAt = performance.now() + ttlMs;
    stream.ids.push(entryId);
    stream.sizes.push(bytes);
    stream.bytes += bytes;
    this.total += bytes;
    let trimmed = false;
    while (stream.ids.length > 1 && (stream.bytes > this.maxStreamBytes || stream.ids.length > this.maxLength)) {
      if (stream.bytes > this.maxStreamBytes) trimmed = true;
      stream.ids.shift();
      const size = stream.sizes.shift()!;
      stream.bytes -= size;
      this.total -= size;
    }
    return trimmed ? stream.ids[0] : undefined;
  }

  /** A stream's TTL changed (it finished). */
  expireIn(streamId: string, ttlMs: number): void {
    const stream = this.streams.get(streamId);
    if (stream) stream.expiresAt = performance.now() + ttlMs;
  }

  private sweep(now: number): void {
    if (now - this.sweptAt < SWEEP_MS) return;
    this.sweptAt = now;
    for (const [streamId, stream] of this.streams) {
      if (stream.expiresAt > now) continue;
      this.total -= stream.bytes;
      this.streams.delete(streamId);
    }
  }
}
