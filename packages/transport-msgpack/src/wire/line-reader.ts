import { resolveReceiveLimits, type OldLimitNames, type ReceiveLimits } from './receive-limits.js';
import { FramingError } from './errors.js';
import { joinPieces } from './pieces.js';
import { READ_ALL } from './constants.js';

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** `maxMessageBytes`: the longest line accepted, in bytes, without its newline. Default 64 MiB. */
export interface LineReaderOptions extends Pick<ReceiveLimits, 'maxMessageBytes'>, Pick<OldLimitNames, 'maxLineBytes'> {}

/**
 * Splits newline-delimited JSON (MCP's stdio wire) into lines, in time linear in the bytes read.
 *
 * The SDK's ReadBuffer concatenates the whole buffer on every chunk and searches it from the start, so
 * one large line costs time quadratic in its chunks. Here only new bytes are searched and a line spread
 * over chunks is joined once, when its newline arrives.
 */
export class LineReader {
  readonly maxMessageBytes: number;
  private pieces: Uint8Array[] = [];
  private pendingLength = 0;

  constructor(options: LineReaderOptions = {}) {
    this.maxMessageBytes = resolveReceiveLimits(options).maxMessageBytes;
  }

  get pendingBytes(): number {
    return this.pendingLength;
  }

  /**
   * Feeds a chunk, calling onLine with each complete line (without "\n" or a trailing "\r"). When onLine
   * returns true (exactly), reading stops right after that line and the chunk's unread bytes are returned (perhaps
   * empty), so that a caller switching wires (SPEC.md 7.1) can read them otherwise.
   */
  push(chunk: Uint8Array, onLine: (line: Uint8Array) => unknown): Uint8Array | undefined {
    const stop = this.pushFrom(chunk, 0, onLine);
    return stop === READ_ALL ? undefined : chunk.subarray(stop);
  }

  /**
   * push() from `start`, answering with an offset instead of a view: where reading stopped (after the line
   * onLine returned true for, perhaps the chunk's length), or READ_ALL. A reader that stops after every
   * message (MixedReader) thus makes no view of the rest per message, which costs a microsecond on Bun.
   */
  pushFrom(chunk: Uint8Array, start: number, onLine: (line: Uint8Array) => unknown): number {
    let offset = start;
    while (offset < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, offset);
      if (newline === -1) {
        this.hold(chunk.subarray(offset));
        return READ_ALL;
      }
      let line: Uint8Array;
      if (this.pendingLength === 0) {
        line = chunk.subarray(offset, newline);
      } else {
        this.hold(chunk.subarray(offset, newline));
        line = this.takeLine();
      }
      offset = newline + 1;
      if (line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN) line = line.subarray(0, line.length - 1);
      if (line.length > this.maxMessageBytes) {
        throw new FramingError('line-too-long', `line of ${line.length} bytes is over the ${this.maxMessageBytes}-byte cap`);
      }
      if (onLine(line) === true) return offset;
    }
    return READ_ALL;
  }

  /** Call at end of stream: a final line without a newline is an incomplete message. */
  end(): void {
    const pending = this.pendingLength;
    this.pieces = [];
    this.pendingLength = 0;
    if (pending > 0) throw new FramingError('truncated-frame', `stream ended inside a line (${pending} bytes without a newline)`);
  }

  private hold(piece: Uint8Array): void {
    if (piece.length === 0) return;
    this.pendingLength += piece.length;
    if (this.pendingLength > this.maxMessageBytes) {
      const held = this.pendingLength;
      this.pieces = [];
      this.pendingLength = 0;
      throw new FramingError('line-too-long', `line grew past the ${this.maxMessageBytes}-byte cap (${held} bytes without a newline)`);
    }
    this.pieces.push(piece);
  }

  private takeLine(): Uint8Array {
    const { buffer } = joinPieces(this.pieces, this.pendingLength);
    this.pieces = [];
    this.pendingLength = 0;
    return buffer;
  }
}
