import { DEFAULT_MAX_FRAME_BYTES, FRAME_HEADER_BYTES } from './constants.js';
import { FramingError } from './errors.js';

export interface FrameReaderOptions {
  /** Largest payload accepted; checked on the header, before anything is allocated. Default 64 MiB. */
  maxFrameBytes?: number;
}

/**
 * Splits a byte stream into msgpack-v1 payloads, in time linear in the bytes read.
 *
 * A frame that lies inside one chunk is handed on as a view of that chunk (no copy). A frame spread over
 * chunks is copied once, into a buffer allocated at its final size when its header arrives. Payloads are
 * views: the chunks given to push() must not be modified afterwards (stream chunks never are).
 */
export class FrameReader {
  readonly maxFrameBytes: number;
  private readonly header = new Uint8Array(FRAME_HEADER_BYTES);
  private headerFill = 0;
  private partial: Uint8Array | undefined;
  private partialFill = 0;

  constructor(options: FrameReaderOptions = {}) {
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  }

  /** Bytes held for a frame not yet complete: 0 exactly when the stream is at a frame boundary. */
  get pendingBytes(): number {
    return this.headerFill + this.partialFill;
  }

  /**
   * Feeds one chunk, calling onPayload for every frame it completes, in order. Throws a FramingError
   * (after which the reader is unusable) when a header announces more than maxFrameBytes.
   */
  push(chunk: Uint8Array, onPayload: (payload: Uint8Array) => void): void {
    let offset = 0;
    const end = chunk.length;
    while (offset < end) {
      if (this.partial) {
        const take = Math.min(this.partial.length - this.partialFill, end - offset);
        this.partial.set(chunk.subarray(offset, offset + take), this.partialFill);
        this.partialFill += take;
        offset += take;
        if (this.partialFill === this.partial.length) {
          const payload = this.partial;
          this.partial = undefined;
          this.partialFill = 0;
          onPayload(payload);
        }
        continue;
      }
      let length: number;
      if (this.headerFill === 0 && end - offset >= FRAME_HEADER_BYTES) {
        length = ((chunk[offset]! << 24) | (chunk[offset + 1]! << 16) | (chunk[offset + 2]! << 8) | chunk[offset + 3]!) >>> 0;
        offset += FRAME_HEADER_BYTES;
      } else {
        while (this.headerFill < FRAME_HEADER_BYTES && offset < end) this.header[this.headerFill++] = chunk[offset++]!;
        if (this.headerFill < FRAME_HEADER_BYTES) return;
        const h = this.header;
        length = ((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0;
        this.headerFill = 0;
      }
      if (length > this.maxFrameBytes) {
        throw new FramingError('frame-too-large', `frame header announces ${length} bytes, over the ${this.maxFrameBytes}-byte cap`);
      }
      if (end - offset >= length) {
        const payload = chunk.subarray(offset, offset + length);
        offset += length;
        onPayload(payload);
      } else {
        // Unzeroed is safe: the payload is handed on only once every byte has been written.
        this.partial = Buffer.allocUnsafe(length);
        this.partialFill = 0;
      }
    }
  }

  /** Call at end of stream: throws a FramingError if the stream stopped inside a frame. */
  end(): void {
    if (this.pendingBytes === 0) return;
    const message = this.partial
      ? `stream ended inside a frame (${this.partialFill} of ${this.partial.length} payload bytes)`
      : `stream ended inside a frame header (${this.headerFill} of ${FRAME_HEADER_BYTES} bytes)`;
    this.reset();
    throw new FramingError('truncated-frame', message);
  }

  reset(): void {
    this.headerFill = 0;
    this.partial = undefined;
    this.partialFill = 0;
  }
}
