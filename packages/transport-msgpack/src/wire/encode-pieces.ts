import { FRAME_HEADER_BYTES } from './constants.js';
import { ARENA_BYTES, EncodeArena } from './encode-arena.js';
import { joinPieces } from './pieces.js';
import type { Buffer } from '../runtime/buffer.js';

/** Bins this large or larger are sent as pieces of their own by encodeFramePieces/encodePieces. */
export const BIN_BY_REFERENCE = 32 * 1024;

/**
 * A message as pieces to write in order (one writev): in pieces mode, bins of BIN_BY_REFERENCE bytes or
 * more are not copied into the arena but cut out as pieces of their own, between the arena segments
 * around them. Positions below are message positions (bytes from the message start, cut pieces included),
 * which stay valid when the current segment moves to a larger buffer.
 */
export abstract class PiecesOutput extends EncodeArena {
  /** Pieces already cut off the message (pieces mode only): arena segments and large bins, in order. */
  private cut: Uint8Array[] | undefined;
  /** Bytes in `cut`. */
  private cutBytes = 0;
  /** Bytes of the large bins in `cut` (not arena bytes: left out of the next message's size estimate). */
  private referencedBytes = 0;

  /** Starts a message; `byReference`: large bins are cut out as pieces of their own. */
  protected startMessage(byReference: boolean): void {
    this.prepareMessage();
    this.cut = byReference ? [] : undefined;
    this.cutBytes = 0;
    this.referencedBytes = 0;
  }

  /** Bytes written so far in the current message, pieces already cut included. */
  protected logicalPos(): number {
    return this.cutBytes + (this.pos - this.segmentStart);
  }

  /** Whether a bin of `length` bytes is cut out as a piece of its own rather than copied. */
  protected isByReference(length: number): boolean {
    return this.cut !== undefined && length >= BIN_BY_REFERENCE;
  }

  /** Closes the segment after a large bin's header (just written); the bin itself becomes the next piece. */
  protected cutOut(bin: Uint8Array): void {
    this.cut!.push(this.buf.subarray(this.segmentStart, this.pos), bin);
    this.cutBytes += this.pos - this.segmentStart + bin.byteLength;
    this.referencedBytes += bin.byteLength;
    this.segmentStart = this.pos;
  }

  /** Where message position `position` is in `buf` (it must be in the current segment). */
  protected indexOf(position: number): number {
    return this.segmentStart + (position - this.cutBytes);
  }

  /** Writes one byte at a message position, in the current segment or in a piece already cut. */
  protected setByteAt(position: number, byte: number): void {
    if (position >= this.cutBytes) {
      this.buf[this.indexOf(position)] = byte;
      return;
    }
    let offset = position;
    for (const piece of this.cut!) {
      if (offset < piece.length) {
        piece[offset] = byte; // always an arena segment: headers are never inside a bin
        return;
      }
      offset -= piece.length;
    }
  }

  /**
   * Brings message position `position` back into the current segment if a large bin was cut out after it:
   * copies the cut pieces from the one holding it onwards, and the current segment, into one new segment.
   */
  protected rejoinFrom(position: number): void {
    if (position >= this.cutBytes) return;
    const cut = this.cut!;
    let first = 0;
    let before = 0;
    while (before + cut[first]!.length <= position) before += cut[first++]!.length;
    const tail = cut.splice(first);
    const segment = this.buf.subarray(this.segmentStart, this.pos);
    tail.push(segment);
    const { buffer, written } = joinPieces(tail, this.cutBytes - before + segment.length + ARENA_BYTES);
    this.cutBytes = before;
    this.useOwnBuffer(buffer, written);
  }

  /** Writes the frame header, the payload's length big-endian, at the start of the message. */
  protected writeFrameHeader(payloadBytes: number): void {
    const first = this.cut?.[0];
    if (first === undefined) this.view.setUint32(this.segmentStart, payloadBytes);
    // A cut follows a bin header, so the first piece is an arena segment holding the whole frame header.
    else new DataView(first.buffer, first.byteOffset, FRAME_HEADER_BYTES).setUint32(0, payloadBytes);
  }

  /** The finished message's pieces in order: the current segment alone unless bins were cut out. */
  protected takeMessage(): Uint8Array[] {
    const cut = this.cut;
    this.cut = undefined;
    let out: Uint8Array[];
    if (cut === undefined || cut.length === 0) {
      out = [this.takeSegment()];
    } else {
      out = cut;
      if (this.pos > this.segmentStart) out.push(this.buf.subarray(this.segmentStart, this.pos));
    }
    this.releaseMessage(out, this.logicalPos() - this.referencedBytes);
    return out;
  }

  /** Forgets a message that failed, and the pieces cut from it. */
  protected override abandonMessage(startBuf: Buffer, start: number): void {
    this.cut = undefined;
    super.abandonMessage(startBuf, start);
  }
}
