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
 * trip then costs twice that, as on a distant link). One link: the connections a client opens through it
 * share its bandwidth in each direction (a request on a second connection does not get a link of its own).
 * A new connection's handshake is modelled as a real one costs: nothing from the client leaves before one
 * round trip (2 x `delayMs`) after it connected, as SYN and SYN-ACK would take (a loopback handshake itself
 * is instant; with no delay this changes nothing). For the link scenario's latencies (scenarios/link.ts),
 * not for byte counts (it counts the bytes to the client too).
 */
export class ThrottledLink {
  /** Bytes relayed to the client, for the report. */
  received = 0;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  /** When each direction of the link is free again (shared by every connection through it). */
  private readonly linkFreeAt = { up: 0, down: 0 };

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
    // The handshake: the client's first bytes go one round trip after it connected.
    this.direction(client, upstream, 'up', () => {}, performance.now() + 2 * this.delayMs);
    this.direction(upstream, client, 'down', (n) => (this.received += n), 0);
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
  private direction(from: Socket, to: Socket, way: 'up' | 'down', count: (bytes: number) => void, openAt: number): void {
    const queue: Array<{ chunk: Buffer; at: number }> = [];
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
    const admit = (chunk: Buffer) => {
      const through = Math.max(performance.now(), this.linkFreeAt[way]) + (chunk.length * 8 * 1000) / this.bitsPerSecond;
      this.linkFreeAt[way] = through;
      queue.push({ chunk, at: through + this.delayMs });
      queued += chunk.length;
      if (queued > QUEUE_HIGH) from.pause();
      timer ??= setImmediate(pump);
    };
    // Bytes written before the handshake is over wait for it off the link (which others may use meanwhile).
    const early: Buffer[] = [];
    from.on('data', (chunk: Buffer) => {
      const now = performance.now();
      if (now >= openAt && early.length === 0) return admit(chunk);
      early.push(chunk);
      if (early.length === 1) setTimeout(() => early.splice(0).forEach(admit), openAt - now);
    });
    from.on('end', () => {
      ended = true;
      if (queue.length === 0 && early.length === 0 && timer === undefined) to.end();
    });
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
