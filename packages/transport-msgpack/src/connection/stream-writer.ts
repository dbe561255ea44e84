import { WriteStream } from 'node:fs';
import process from 'node:process';
import type { Writable } from 'node:stream';
import { giveBackWhenWritten, writesCopyOut } from '../buffers/lent-bytes.js';

/**
 * Writes whole messages to a byte stream, one write() each, so two messages' bytes never interleave.
 * When the stream asks to wait (write() returned false), later messages are not even encoded until it
 * drains: a slow reader holds back the senders instead of growing a buffer without bound.
 *
 * Messages sent in the same turn of the event loop (replies to a batch of concurrent requests) are
 * corked and leave in one writev when the turn's microtasks are done: one system call and one wake-up of
 * the reader instead of one per message. A lone message leaves as soon as its turn ends.
 */
export class StreamWriter {
  private drained: Promise<void> | undefined;
  private releaseWaiters: (() => void) | undefined;
  private closedReason: Error | undefined;
  private corked = false;

  /**
   * Whether lent bytes (NativeBytesPool, the encoder's spare) may be given back once written: on an OS
   * handle (writesCopyOut), or on a file-descriptor WriteStream, whose write callback runs once write(2)
   * has returned. Bun's process.stdout is such a stream (Node's is a Socket on a pipe): without this, a
   * media server on Bun never got its 5 MiB buffers back over stdio and allocated one per call.
   */
  private readonly copiesOut: boolean;

  constructor(private readonly stream: Writable) {
    this.copiesOut = writesCopyOut(stream) || stream instanceof WriteStream;
  }

  /**
   * Encodes (when its turn comes) and writes one message, given whole or as pieces (written back to back
   * in the same corked turn, so they leave together); resolves when the stream can take more.
   */
  async write(encode: () => Uint8Array | string | readonly Uint8Array[]): Promise<void> {
    while (this.drained) await this.drained;
    if (this.closedReason) throw this.closedReason;
    if (this.stream.destroyed || this.stream.writableEnded) throw new Error('Not connected: the output stream is closed');
    const bytes = encode();
    if (!this.corked) {
      this.corked = true;
      this.stream.cork();
      process.nextTick(this.uncork);
    }
    let ok = true;
    if (typeof bytes === 'string' || bytes instanceof Uint8Array) ok = this.stream.write(bytes);
    else for (const piece of bytes) ok = this.stream.write(piece, giveBackWhenWritten(piece, this.copiesOut));
    if (!ok) {
      this.drained = new Promise<void>((resolve) => {
        const done = () => {
          this.stream.off('drain', done);
          this.stream.off('close', done);
          this.stream.off('error', done);
          this.drained = undefined;
          this.releaseWaiters = undefined;
          resolve();
        };
        this.releaseWaiters = done;
        this.stream.on('drain', done);
        this.stream.on('close', done);
        this.stream.on('error', done);
      });
      await this.drained;
    }
  }

  private readonly uncork = (): void => {
    this.corked = false;
    this.stream.uncork();
  };

  /** Makes every later write fail with `reason`, including those waiting for a drain that may never come. */
  close(reason: Error): void {
    this.closedReason = reason;
    this.releaseWaiters?.();
  }
}
