import { resolveReceiveLimits, type ReceiveLimits } from './receive-limits.js';
import { FrameReader } from './frame-reader.js';
import { LineReader } from './line-reader.js';
import { READ_ALL } from './constants.js';

/**
 * SPEC.md 7.2: whether a byte that starts a message on stdio starts JSON text: `{`, `[`, ASCII whitespace, or
 * a UTF-8 byte order mark. Any other byte is the top byte of a msgpack-v1 frame's length (0x00-0x03 for any
 * frame under the 64 MiB default cap; the smallest length that starts like JSON, 0x09000000, is 144 MiB).
 */
export function startsJsonText(firstByte: number): boolean {
  switch (firstByte) {
    case 0x7b: // {
    case 0x5b: // [
    case 0x20:
    case 0x09:
    case 0x0a:
    case 0x0d:
    case 0xef: // UTF-8 byte order mark
      return true;
    default:
      return false;
  }
}

/** Frames whose payload is this long or longer start with a byte that starts JSON text (0x09): not on a mixed stream. */
export const MIXED_STREAM_FRAME_LIMIT = 0x0900_0000;

/** `maxMessageBytes`: the largest message accepted, as a frame's payload or a JSON line. Default 64 MiB. */
export interface MixedReaderOptions extends Pick<ReceiveLimits, 'maxMessageBytes'> {}

/** What a message on a mixed stream was sent as. */
export type MixedKind = 'line' | 'frame';

/**
 * Splits a mixed stream (SPEC.md 7.4) into messages: each message is either one JSON line or one msgpack-v1
 * frame, told apart by its first byte (startsJsonText). Lines are read by a LineReader and frames by a
 * FrameReader, each stopped after its one message so that the next first byte is looked at; both keep their
 * linear-time reading and their caps. A message cut anywhere between chunks is continued by the reader that
 * started it.
 */
export class MixedReader {
  private readonly lines: LineReader;
  private readonly frames: FrameReader;
  /** The reader in the middle of a message, or undefined at a message boundary. */
  private current: 'line' | 'frame' | undefined;
  /** push()'s onMessage, for the readers' callbacks (made once, not per message). */
  private sink: (bytes: Uint8Array, kind: MixedKind) => void = () => {};

  /** `lines`: a line reader to take over (maybe in the middle of a line), when a JSON stream turns mixed. */
  constructor(options: MixedReaderOptions = {}, lines?: LineReader) {
    const { maxMessageBytes } = resolveReceiveLimits(options);
    this.lines = lines ?? new LineReader({ maxMessageBytes });
    this.frames = new FrameReader({ maxMessageBytes });
    this.current = this.lines.pendingBytes > 0 ? 'line' : undefined;
  }

  /** Bytes held for a message not yet complete: 0 exactly at a message boundary. */
  get pendingBytes(): number {
    return this.lines.pendingBytes + this.frames.pendingBytes;
  }

  /**
   * Feeds one chunk, calling onMessage for every message it completes, in order (blank lines included, as
   * empty or whitespace lines, for the caller to skip). Throws the readers' FramingError (a line or a frame
   * over the cap), after which the reader is unusable.
   */
  push(chunk: Uint8Array, onMessage: (bytes: Uint8Array, kind: MixedKind) => void): void {
    this.sink = onMessage;
    // Offsets, not views of the rest: one message per turn of this loop, so a view each would be paid per message.
    let offset = 0;
    while (offset < chunk.length) {
      const kind: 'line' | 'frame' = this.current ?? (startsJsonText(chunk[offset]!) ? 'line' : 'frame');
      this.current = kind;
      offset = kind === 'line' ? this.lines.pushFrom(chunk, offset, this.onLine) : this.frames.pushFrom(chunk, offset, this.onFrame);
      // READ_ALL: the chunk ended inside the message, which goes on in the next chunk.
      if (offset === READ_ALL) return;
      this.current = undefined;
    }
  }

  // Each stops its reader after one message: the next message's first byte decides who reads it.
  private readonly onLine = (line: Uint8Array): true => {
    this.sink(line, 'line');
    return true;
  };

  private readonly onFrame = (payload: Uint8Array): true => {
    this.sink(payload, 'frame');
    return true;
  };

  /** Call at end of stream: throws a FramingError ('truncated-frame') if the stream stopped inside a message. */
  end(): void {
    this.current = undefined;
    this.lines.end();
    this.frames.end();
  }
}
