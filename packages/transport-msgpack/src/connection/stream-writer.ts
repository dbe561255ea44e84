import type { Writable } from 'node:stream';

/**
 * Writes whole messages to a byte stream, one write() each, so two messages' bytes never interleave.
 * When the stream asks to wait (write() returned false), later messages are not even encoded until it
 * drains: a slow reader holds back the senders instead of growing a buffer without bound.
 */
export class StreamWriter {
  private drained: Promise<void> | undefined;
  private releaseWaiters: (() => void) | undefined;
  private closedReason: Error | undefined;

  constructor(private readonly stream: Writable) {}

  /** Encodes (when its turn comes) and writes one message; resolves when the stream can take more. */
  async write(encode: () => Uint8Array | string): Promise<void> {
    while (this.drained) await this.drained;
    if (this.closedReason) throw this.closedReason;
    if (this.stream.destroyed || this.stream.writableEnded) throw new Error('Not connected: the output stream is closed');
    const ok = this.stream.write(encode());
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

  /** Makes every later write fail with `reason`, including those waiting for a drain that may never come. */
  close(reason: Error): void {
    this.closedReason = reason;
    this.releaseWaiters?.();
  }
}
