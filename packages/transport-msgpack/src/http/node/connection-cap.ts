// listenNode's connection cap. node:http's own `maxConnections` drops every new connection at the cap, so
// connections that hold a slot and never send a request (silent ones, headers sent a byte at a time, kept-alive
// ones between requests) lock every new client out until their deadlines free them: with 2,000 idle and
// 2,000 partial-header connections held, 5 of 10 normal calls failed in the first 10 s (issue 39). Here a
// new connection at the cap makes room instead, and is turned away only when every slot is serving a request.
import type { Server as NodeServer } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Caps `server` at `max` open connections. A connection is waiting from when it opens until its first
 * request's headers are in, and again from when a reply ends until the next request's headers are in (a
 * kept-alive connection); otherwise a request is in flight on it. At the cap, a new connection closes the
 * connection that has been waiting longest (oldest first) and takes its slot; when none is waiting (every
 * slot serves a request) the new connection is closed, unanswered, as node:http's own cap does.
 */
export function capConnections(server: NodeServer, max: number): void {
  /** Every connection holding a slot. */
  const open = new Set<Socket>();
  /** The waiting ones, in the order they began waiting (a Set iterates in insertion order). */
  const waiting = new Set<Socket>();
  /** Requests in flight per connection (pipelined requests can overlap their replies). */
  const inFlight = new Map<Socket, number>();

  server.on('connection', (socket: Socket) => {
    if (open.size >= max) {
      const oldest: Socket | undefined = waiting.values().next().value;
      if (oldest === undefined) {
        socket.destroy();
        return;
      }
      // Its slot is free now, not when its 'close' event comes (a flood of new connections would otherwise
      // all pick the same victim).
      release(oldest);
      oldest.destroy();
    }
    open.add(socket);
    waiting.add(socket);
    socket.once('close', () => release(socket));
  });

  server.on('request', (req: { socket: Socket }, res: { once(event: 'close', listener: () => void): unknown }) => {
    const { socket } = req;
    if (!open.has(socket)) return;
    waiting.delete(socket);
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      if (left > 0) return void inFlight.set(socket, left);
      inFlight.delete(socket);
      // Waiting again, now the newest: a kept-alive connection between requests.
      if (open.has(socket) && !socket.destroyed) waiting.add(socket);
    });
  });

  function release(socket: Socket): void {
    open.delete(socket);
    waiting.delete(socket);
    inFlight.delete(socket);
  }
}
