import { lendBytes } from '../buffers/lent-bytes.js';
import { DEFAULT_IDLE_RELEASE_MS, IdleRelease } from '../buffers/idle-release.js';
import { Buffer } from '../runtime/buffer.js';

/**
 * The buffers the canonical encoder writes messages into: an arena shared by consecutive messages, whose
 * oversized buffers are dropped as soon as the message that needed them is out (one, up to
 * MAX_SPARE_BYTES, is kept for the next large message once the writer reports it written).
 *
 * A base class, not an object the encoder holds: the encoder reads and writes `buf` and `pos` for every
 * byte, and fields of its own cost no extra load there.
 */

export const ARENA_BYTES = 64 * 1024;
/** Below this many free bytes the arena is replaced before a message starts, so small frames rarely grow. */
const ARENA_MIN_FREE = 4 * 1024;
/** Largest arena kept from one message to the next (bigger messages get buffers of their own). */
const MAX_ARENA_BYTES = 1024 * 1024;
/** Largest buffer of its own kept for the next large message once the last one is written. */
const MAX_SPARE_BYTES = 16 * 1024 * 1024;

/** A buffer messages are written into, and how many of them are not yet known to be written out. */
interface BufferLease {
  readonly buffer: Buffer;
  /** A large message's buffer of its own (back as `spare`), or an arena (back as `spareArena`). */
  readonly own: boolean;
  unwritten: number;
  /** No longer written into: once nothing in it is unwritten, it can be used again. */
  retired: boolean;
}

export abstract class EncodeArena {
  /**
   * No arena until the first message asks for one (prepareMessage): a transport made for one request, or
   * one whose client speaks JSON, may never encode MessagePack, and a 64 KiB buffer per request is garbage
   * V8 must account and collect.
   */
  protected buf: Buffer = Buffer.allocUnsafe(0);
  /**
   * The current buffer's lease. Each message placed in it is lent (lent-bytes) through its last piece there,
   * and writers that know the kernel has the bytes give it back: a buffer whose messages all came back is
   * reused instead of a fresh one. Messages of one arena may go to different sockets, hence a count per
   * buffer; one message never given back keeps its buffer from reuse (it is then just garbage-collected).
   * Without this, every large message allocated a buffer of its own, and a stream of 50 KB messages a fresh
   * 200 KB arena every few messages, and V8's background threads spent twice JSON's time collecting them.
   * Default-sized arenas are not leased: small messages fill one rarely, and lending each of them (a write
   * callback per message) cost more than it saved.
   */
  private lease: BufferLease | undefined;
  /** A retired arena whose messages were all written: taken by the next arena of a fitting size. */
  private spareArena: Buffer | undefined;
  protected view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  protected pos = 0;
  /** Where the current segment starts in `buf`: the message start, until a large bin is cut out. */
  protected segmentStart = 0;
  private grew = false;
  /** Arena bytes of the last message (bins sent by reference not counted): the next one's estimate. */
  private lastSize = 0;
  /** A large message's buffer whose message was written: for the next large message; dropped by a small one. */
  private spare: Buffer | undefined;
  /**
   * Lets go of the spares and a grown arena once no large message has been written for a while: an encoder
   * lives as long as its connection (an HTTP session: up to its idle timeout), and a session that sent one
   * large reply would otherwise hold a buffer that size for all that time. Used on large messages only.
   */
  private readonly idle = new IdleRelease(DEFAULT_IDLE_RELEASE_MS, () => this.releaseKept());

  /** Makes room for a message like the last one, which starts at `pos`. */
  protected prepareMessage(): void {
    this.grew = false;
    this.makeRoomFor(this.lastSize + (this.lastSize >>> 2));
    this.segmentStart = this.pos;
  }

  /** The current segment, as the message's only piece. */
  protected takeSegment(): Uint8Array {
    const whole = this.buf.subarray(this.segmentStart, this.pos);
    // A message far smaller than the buffer of its own (the estimate was off) must not pin that
    // buffer until it is written: copying it out costs less than the allocation already made.
    return this.grew && whole.length * 4 < this.buf.length ? Buffer.from(whole) : whole;
  }

  /**
   * Ends a message handed out as `out`, of `arenaBytes` in arena buffers. Later messages start after it,
   * so `out` is never overwritten. A buffer grown for one big message is not kept as the arena: the next
   * message gets a fresh one, and the big one dies with `out`, or comes back as the spare once `out` is
   * written.
   */
  protected releaseMessage(out: readonly Uint8Array[], arenaBytes: number): void {
    this.lastSize = arenaBytes;
    if (this.lease !== undefined) this.lendLastPiece(this.lease, out);
    if (this.grew) this.replaceArena(0);
  }

  /** Forgets a message that failed; it started at `start` in `startBuf`. */
  protected abandonMessage(startBuf: Buffer, start: number): void {
    // A message that failed after growing the buffer must not leave the large buffer behind either.
    if (this.grew || this.buf !== startBuf) this.replaceArena(0);
    else this.pos = start;
  }

  /**
   * Makes room for `bytes` more, moving the current segment to a larger buffer if needed (pieces already
   * cut stay where they are).
   */
  protected ensure(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const used = this.pos - this.segmentStart;
    const next = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, used + bytes + ARENA_BYTES));
    this.buf.copy(next, 0, this.segmentStart, this.pos);
    this.useOwnBuffer(next, used);
  }

  /** A buffer for one large message (this one), leased so it can serve the next large message once written. */
  protected useOwnBuffer(buffer: Buffer, pos: number): void {
    this.useBuffer(buffer, pos, buffer.length <= MAX_SPARE_BYTES ? 'own' : undefined);
    this.grew = true; // not kept as the arena once this message is out
    this.idle.use();
  }

  /** @internal Bytes in buffers kept between messages: the arena, its spare and the large messages' spare. */
  get keptBytes(): number {
    return this.buf.length + (this.spareArena?.length ?? 0) + (this.spare?.length ?? 0);
  }

  /** Drops what is kept between messages, between messages (an idle timer runs no encode in the middle). */
  private releaseKept(): void {
    // First, since a retired buffer whose messages are all written goes back to a spare slot.
    if (this.buf.length > ARENA_BYTES) this.replaceArena(0);
    this.spare = undefined;
    this.spareArena = undefined;
  }

  /**
   * Starts each message where it will most likely fit without growing mid-write (a grow copies what was
   * written so far): messages in one stream tend to be alike, so the last size is the estimate. Arenas are
   * kept up to MAX_ARENA_BYTES; a message expected to be larger gets a buffer of its own (the spare, if one
   * came back written and fits).
   */
  private makeRoomFor(estimate: number): void {
    const wanted = Math.max(ARENA_MIN_FREE, estimate);
    if (wanted * 4 <= MAX_ARENA_BYTES) {
      this.spare = undefined; // small messages again: no reason to hold a large buffer
      if (this.buf.length - this.pos < wanted) this.replaceArena(Math.max(ARENA_BYTES, wanted * 4));
      return;
    }
    const size = wanted + ARENA_MIN_FREE;
    const spare = this.spare;
    this.spare = undefined;
    this.useOwnBuffer(spare !== undefined && spare.length >= size ? spare : Buffer.allocUnsafeSlow(size + (size >>> 3)), 0);
  }

  /** Counts a message as unwritten in its buffer, and lends its last piece there to settle it once written. */
  private lendLastPiece(lease: BufferLease, out: readonly Uint8Array[]): void {
    for (let i = out.length - 1; i >= 0; i--) {
      const piece = out[i]!;
      if (piece.buffer !== lease.buffer.buffer) continue;
      lease.unwritten++;
      lendBytes(piece, () => {
        lease.unwritten--;
        if (lease.retired && lease.unwritten === 0) this.keep(lease);
      });
      return;
    }
  }

  /** A retired buffer whose messages were all written goes back to its slot (the larger one is kept). */
  private keep(lease: BufferLease): void {
    this.idle.use();
    const buffer = lease.buffer;
    if (lease.own) {
      if (this.spare === undefined || this.spare.length < buffer.length) this.spare = buffer;
    } else if (this.spareArena === undefined || this.spareArena.length < buffer.length) {
      this.spareArena = buffer;
    }
  }

  /** A new arena of at least `size` bytes (0: none until the next message asks): a spare one if it fits. */
  private replaceArena(size: number): void {
    if (size === 0) return this.useBuffer(Buffer.allocUnsafe(0), 0, undefined);
    const spare = this.spareArena;
    const buffer = spare !== undefined && spare.length >= size ? spare : Buffer.allocUnsafeSlow(size);
    if (buffer === spare) this.spareArena = undefined;
    if (size > ARENA_BYTES) this.idle.use();
    this.useBuffer(buffer, 0, size > ARENA_BYTES ? 'arena' : undefined);
  }

  /**
   * Switches to `buffer` (leased as `kind`, or not at all), retiring the current one: it returns to its
   * slot once its messages are written.
   */
  private useBuffer(buffer: Buffer, pos: number, kind: 'arena' | 'own' | undefined): void {
    const lease = this.lease;
    if (lease !== undefined) {
      lease.retired = true;
      if (lease.unwritten === 0) this.keep(lease);
    }
    this.lease = kind === undefined ? undefined : { buffer, own: kind === 'own', unwritten: 0, retired: false };
    this.buf = buffer;
    this.view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    this.pos = pos;
    this.segmentStart = 0;
  }
}
