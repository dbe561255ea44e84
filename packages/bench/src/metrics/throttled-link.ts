import { connect, createServer, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/** Bytes queued in one direction past which the sender is paused (a link's buffer, not an unbounded queue). */
const QUEUE_HIGH = 256 * 1024;

/**
 * A timer's granularity, ms: node and Bun fire a timeout no sooner than 1 ms, a loaded machine later. A
 * chunk due sooner than this is written on the event loop's next turns (setImmediate, checking the clock)
 * instead of on a timer, which held each one a whole tick and more past its time: most of an opening's chunks
 * are due in well under a millisecond at 10 Mbit/s, so each paid a tick on every hop (2.4 ms for an isolated
 * 500-byte round trip whose bits take 0.8). A later chunk gets a timer set this much before its time, then
 * the same turns. The turns cost CPU only in that last millisecond before a chunk is due.
 */
const TIMER_GRANULARITY_MS = 1;

/**
 * A loopback TCP relay that lets through at most `bitsPerSecond` in each direction, as a bandwidth-limited
 * link would (no loss; by default no added propagation delay): each chunk leaves once the link has sent
 * everything before it and then the chunk itself at that rate, plus `delayMs` one way when given (a round
 * trip then costs twice that, as on a distant link). For the link scenario's latencies (scenarios/link.ts),
 * not for byte counts (it counts the bytes to the client too).
 */
export class ThrottledLink {
  /** Bytes relayed to the client, for the report. */
  received = 0;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly targetPort: number,
    private readonly bitsPerSecond: number,
    private readonly delayMs = 0,
  ) {}

  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      const server = createServer((client) => this.relay(client));
      this.server = server;
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      });
    });
  }

  private relay(client: Socket): void {
    const upstream = connect(this.targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      this.sockets.add(socket);
    }
    this.direction(client, upstream, () => {});
    this.direction(upstream, client, (n) => (this.received += n));
    const finish = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    for (const socket of [client, upstream]) {
      socket.on('close', finish);
      socket.on('error', finish);
    }
  }

  /**
   * One direction: chunks queued with the time each is through the link, written in order as each falls due,
   * by one timer (or, in the last millisecond, the event loop's next turn) for the next one.
   */
  private direction(from: Socket, to: Socket, count: (bytes: number) => void): void {
    const queue: Array<{ chunk: Buffer; at: number }> = [];
    let linkFreeAt = 0;
    let queued = 0;
    let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
    let ended = false;
    const pump = () => {
      timer = undefined;
      const now = performance.now();
      while (queue.length > 0 && queue[0]!.at <= now) {
        const { chunk } = queue.shift()!;
        queued -= chunk.length;
        count(chunk.length);
        to.write(chunk);
      }
      if (queued < QUEUE_HIGH / 2 && from.isPaused()) from.resume();
      if (queue.length > 0) {
        const wait = queue[0]!.at - now;
        timer = wait > TIMER_GRANULARITY_MS ? setTimeout(pump, wait - TIMER_GRANULARITY_MS) : setImmediate(pump);
      } else if (ended) to.end();
    };
    from.on('data', (chunk: Buffer) => {
      linkFreeAt = Math.max(performance.now(), linkFreeAt) + (chunk.length * 8 * 1000) / this.bitsPerSecond;
      queue.push({ chunk, at: linkFreeAt + this.delayMs });
      queued += chunk.length;
      if (queued > QUEUE_HIGH) from.pause();
      timer ??= setImmediate(pump);
    });
    from.on('end', () => {
      ended = true;
      if (queue.length === 0 && timer === undefined) to.end();
    });
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
