import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';

/** Bytes that crossed a connection so far in each direction, from the client's point of view. */
export interface ByteSource {
  snapshot(): { sent: number; received: number } | Promise<{ sent: number; received: number }>;
}

/** Bytes that crossed a connection in each direction, from the client's point of view. */
export class ByteCounter implements ByteSource {
  /** Client to server (requests). */
  sent = 0;
  /** Server to client (responses). */
  received = 0;

  snapshot(): { sent: number; received: number } {
    return { sent: this.sent, received: this.received };
  }
}

/** Counts every byte read from `stream` (it adds a 'data' listener, so attach it where data flows anyway). */
export function countReadable(stream: Readable, onBytes: (n: number) => void): void {
  stream.on('data', (chunk: Buffer | string) => onBytes(typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length));
}

/** Counts every byte written to `stream` by wrapping its write(). */
export function countWritable(stream: Writable, onBytes: (n: number) => void): void {
  const write = stream.write;
  stream.write = function countedWrite(this: Writable, chunk: unknown, ...rest: unknown[]): boolean {
    if (typeof chunk === 'string') onBytes(Buffer.byteLength(chunk, typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : 'utf8'));
    else if (chunk instanceof Uint8Array) onBytes(chunk.length);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as Writable['write'];
}

/** Counts the stdio bytes of a child process: stdin is what the client sent, stdout what it received. */
export function countChildStdio(child: ChildProcess, counter: ByteCounter): void {
  if (child.stdin) countWritable(child.stdin, (n) => (counter.sent += n));
  if (child.stdout) countReadable(child.stdout, (n) => (counter.received += n));
}

/** A spawn() that counts the child's stdio bytes into `counter` (for transports that accept a spawn hook). */
export function countingSpawn(counter: ByteCounter) {
  return (command: string, args: readonly string[], options: SpawnOptions): ChildProcess => {
    const child = spawn(command, args, options);
    countChildStdio(child, counter);
    return child;
  };
}

/**
 * A loopback TCP relay that counts the bytes in each direction exactly as they cross the wire (HTTP
 * headers, chunking and compression included), whatever the client and server runtimes are. Clients
 * connect to `port`; the relay forwards to the server's port.
 */
export class CountingProxy {
  readonly counter = new ByteCounter();
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly targetPort: number,
    private readonly host = '127.0.0.1',
  ) {}

  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      const server = createServer((client) => this.relay(client));
      this.server = server;
      server.once('error', reject);
      server.listen(0, this.host, () => {
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      });
    });
  }

  private relay(client: Socket): void {
    const upstream = connect(this.targetPort, this.host);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    this.sockets.add(client);
    this.sockets.add(upstream);
    client.on('data', (chunk: Buffer) => {
      this.counter.sent += chunk.length;
      if (!upstream.write(chunk)) client.pause();
    });
    upstream.on('data', (chunk: Buffer) => {
      this.counter.received += chunk.length;
      if (!client.write(chunk)) upstream.pause();
    });
    upstream.on('drain', () => client.resume());
    client.on('drain', () => upstream.resume());
    const finish = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('close', finish);
    upstream.on('close', finish);
    client.on('error', finish);
    upstream.on('error', finish);
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
