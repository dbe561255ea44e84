import { giveBack, lendBytes } from './lent-bytes.js';
import { DEFAULT_IDLE_RELEASE_MS, IdleRelease } from './idle-release.js';
import { Buffer } from '../runtime/buffer.js';

export interface NativeBytesPoolOptions {
  /** Most bytes kept in free buffers between uses. Default 64 MiB. */
  maxRetainedBytes?: number;
  /** Smaller requests get a fresh buffer, unpooled. Default 64 KiB. */
  minPooledBytes?: number;
  /**
   * Free buffers are dropped once the pool has gone unused (nothing taken or given back) this long, so a
   * burst's buffers do not stay in memory for good. Default 10 s; 0 or Infinity keeps them.
   */
  idleReleaseMs?: number;
}

/**
 * Reusable buffers for media a server reads fresh on every call (a file, a rendered image): read into
 * `acquire(size)`, hand the result to nativeImage() and friends, and this package's transports give the
 * buffer back once the bytes are written (or encoded as base64). A 5 MiB image then costs no fresh 5 MiB
 * allocation per call, and none of the garbage collection such allocations bring.
 *
 * Contract: the buffer goes to the transport unchanged and is not touched afterwards, like any native
 * bytes. One not given back (a result never sent, a client gone mid-reply, a runtime whose writes report
 * no completion) is just garbage-collected; `release()` returns one that will not be sent at all.
 */
export class NativeBytesPool {
  /** Free buffers by capacity. */
  private readonly free = new Map<number, Buffer[]>();
  private retained = 0;
  private readonly maxRetained: number;
  private readonly minPooled: number;
  /** Drops the free buffers once nothing has been taken or given back for idleReleaseMs. */
  private readonly idle: IdleRelease;

  constructor(options: NativeBytesPoolOptions = {}) {
    this.maxRetained = options.maxRetainedBytes ?? 64 * 1024 * 1024;
    this.minPooled = options.minPooledBytes ?? 64 * 1024;
    this.idle = new IdleRelease(options.idleReleaseMs ?? DEFAULT_IDLE_RELEASE_MS, () => this.dropFree());
  }

  /** Drops the free buffers now, as the idle release does; buffers lent out come back as usual. */
  dropFree(): void {
    this.free.clear();
    this.retained = 0;
  }

  /** Bytes held in free buffers now. */
  get retainedBytes(): number {
    return this.retained;
  }

  /** A buffer of exactly `size` bytes, uninitialized: fill all of it before use. */
  acquire(size: number): Buffer {
    if (size < this.minPooled) return Buffer.allocUnsafe(size);
    const capacity = capacityFor(size);
    this.idle.use();
    let whole = this.free.get(capacity)?.pop();
    if (whole) this.retained -= capacity;
    else whole = Buffer.allocUnsafeSlow(capacity);
    const view = whole.subarray(0, size);
    const buffer = whole;
    lendBytes(view, () => this.keep(buffer));
    return view;
  }

  /** Gives back a buffer from acquire() that will not be sent after all (a failed read, say). */
  release(bytes: Uint8Array): void {
    giveBack(bytes);
  }

  private keep(buffer: Buffer): void {
    if (this.retained + buffer.length > this.maxRetained) return;
    let list = this.free.get(buffer.length);
    if (!list) this.free.set(buffer.length, (list = []));
    list.push(buffer);
    this.retained += buffer.length;
    this.idle.use();
  }
}

/**
 * Capacities in quarter steps between powers of two (5 MiB gets 5 MiB, 5.1 MiB gets 6 MiB): at most 25%
 * over, and a file that changes size a little keeps reusing the same buffer.
 */
function capacityFor(size: number): number {
  const step = 2 ** Math.floor(Math.log2(size)) / 4;
  return Math.ceil(size / step) * step;
}
