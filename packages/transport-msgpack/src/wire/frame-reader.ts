import { FRAME_HEADER_BYTES, READ_ALL } from './constants.js';
import { resolveReceiveLimits, type OldLimitNames, type ReceiveLimits } from './receive-limits.js';
import { FramingError } from './errors.js';
import { joinPieces } from './pieces.js';
import { Buffer } from '../runtime/buffer.js';

/** `maxMessageBytes`: the largest payload accepted, checked on the header before anything is allocated. Default 64 MiB. */
export interface FrameReaderOptions extends Pick<ReceiveLimits, 'maxMessageBytes'>, Pick<OldLimitNames, 'maxFrameBytes'> {}

/**
 * Splits a byte stream into msgpack-v1 payloads, in time linear in the bytes read.
 *
 * A frame that lies inside one chunk is handed on as a view of that chunk (no copy). A frame spread over
 * chunks is copied once, into a buffer allocated at its final size: when its header arrives for frames up
 * to 1 MiB, and for larger ones once a sixteenth of the payload has arrived (until then the chunks are
 * held as they came), so a header alone never makes the reader allocate more than 16x what it received. Payloads are
 * views: the chunks given to push() must not be modified afterwards (stream chunks never are).
 */
export class FrameReader {
  readonly maxMessageBytes: number;
  private readonly header = new Uint8Array(FRAME_HEADER_BYTES);
  private headerFill = 0;
  private partial: Uint8Array | undefined;
  private partialFill = 0;
  // A large frame's first chunks are held as they came until enough has arrived to justify its buffer.
  private expected = 0;
  private held: Uint8Array[] = [];
  private heldBytes = 0;

  constructor(options: FrameReaderOptions = {}) {
    this.maxMessageBytes = resolveReceiveLimits(options).maxMessageBytes;
  }

  /** Bytes held for a frame not yet complete: 0 exactly when the stream is at a frame boundary. */
  get pendingBytes(): number {
    return this.headerFill + this.partialFill + this.heldBytes;
  }

  /**
   * Feeds one chunk, calling onPayload for every frame it completes, in order. Throws a FramingError
   * (after which the reader is unusable) when a header announces more than maxMessageBytes. When onPayload
   * returns true (exactly), reading stops right after that frame and the chunk's unread bytes are returned
   * (perhaps empty), so that a reader of a mixed stream (SPEC.md 7.4) can look at the next message's first byte.
   */
  push(chunk: Uint8Array, onPayload: (payload: Uint8Array) => unknown): Uint8Array | undefined {
    const stop = this.pushFrom(chunk, 0, onPayload);
    return stop === READ_ALL ? undefined : chunk.subarray(stop);
  }

  /**
   * push() from `start`, answering with an offset instead of a view: where reading stopped (after the frame
   * onPayload returned true for, perhaps the chunk's length), or READ_ALL (LineReader.pushFrom says why).
   */
  pushFrom(chunk: Uint8Array, start: number, onPayload: (payload: Uint8Array) => unknown): number {
    let offset = start;
    const end = chunk.length;
    while (offset < end) {
      if (this.expected > 0) {
        // Hold the chunk itself (no copy yet); its bytes are copied once, into the final buffer.
        const take = Math.min(this.expected - this.heldBytes, end - offset);
        this.held.push(chunk.subarray(offset, offset + take));
        this.heldBytes += take;
        offset += take;
        if (this.heldBytes >= allocationThreshold(this.expected) && this.allocateHeld(onPayload) === true) return offset;
        continue;
      }
      if (this.partial) {
        const take = Math.min(this.partial.length - this.partialFill, end - offset);
        this.partial.set(chunk.subarray(offset, offset + take), this.partialFill);
        this.partialFill += take;
        offset += take;
        if (this.partialFill === this.partial.length) {
          const payload = this.partial;
          this.partial = undefined;
          this.partialFill = 0;
          if (onPayload(payload) === true) return offset;
        }
        continue;
      }
      let length: number;
      if (this.headerFill === 0 && end - offset >= FRAME_HEADER_BYTES) {
        length = ((chunk[offset]! << 24) | (chunk[offset + 1]! << 16) | (chunk[offset + 2]! << 8) | chunk[offset + 3]!) >>> 0;
        offset += FRAME_HEADER_BYTES;
      } else {
        while (this.headerFill < FRAME_HEADER_BYTES && offset < end) this.header[this.headerFill++] = chunk[offset++]!;
        if (this.headerFill < FRAME_HEADER_BYTES) return READ_ALL;
        const h = this.header;
        length = ((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0;
        this.headerFill = 0;
      }
      if (length > this.maxMessageBytes) {
        throw new FramingError('frame-too-large', `frame header announces ${length} bytes, over the ${this.maxMessageBytes}-byte cap`);
      }
      if (end - offset >= length) {
        const payload = chunk.subarray(offset, offset + length);
        offset += length;
        if (onPayload(payload) === true) return offset;
      } else if (length > EAGER_ALLOCATION_BYTES) {
        // A header alone does not make us allocate a large buffer: a peer could pin the cap with 4 bytes.
        this.expected = length;
      } else {
        // Unzeroed is safe: the payload is handed on only once every byte has been written.
        this.partial = Buffer.allocUnsafe(length);
        this.partialFill = 0;
      }
    }
    return READ_ALL;
  }

  /** Joins the held chunks into the frame's buffer; onPayload's answer when that completes the frame. */
  private allocateHeld(onPayload: (payload: Uint8Array) => unknown): unknown {
    const { buffer, written: at } = joinPieces(this.held, this.expected);
    this.held = [];
    this.heldBytes = 0;
    this.expected = 0;
    if (at === buffer.length) return onPayload(buffer);
    this.partial = buffer;
    this.partialFill = at;
    return undefined;
  }

  /** Call at end of stream: throws a FramingError if the stream stopped inside a frame. */
  end(): void {
    if (this.pendingBytes === 0) return;
    const message = this.partial
      ? `stream ended inside a frame (${this.partialFill} of ${this.partial.length} payload bytes)`
      : this.expected > 0
        ? `stream ended inside a frame (${this.heldBytes} of ${this.expected} payload bytes)`
        : `stream ended inside a frame header (${this.headerFill} of ${FRAME_HEADER_BYTES} bytes)`;
    this.reset();
    throw new FramingError('truncated-frame', message);
  }

  reset(): void {
    this.headerFill = 0;
    this.partial = undefined;
    this.partialFill = 0;
    this.expected = 0;
    this.held = [];
    this.heldBytes = 0;
  }
}

/** Frames up to this size get their buffer when the header arrives. */
const EAGER_ALLOCATION_BYTES = 1024 * 1024;

/** A larger frame gets its buffer once a sixteenth of it has arrived: at most 16x what the peer sent. */
function allocationThreshold(length: number): number {
  return Math.max(EAGER_ALLOCATION_BYTES, Math.ceil(length / 16));
}
