import { subscribe } from 'node:diagnostics_channel';
import { readSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';

/**
 * The error a request gets when its kept-alive connection was found closed by the server just before the
 * request's first byte was to be written: none of it was written, so it may be sent again.
 */
export class ClosedBeforeWriteError extends Error {
  readonly code = 'MCP_MSGPACK_CLOSED_BEFORE_WRITE';
  constructor(cause?: unknown) {
    super('the server closed the kept-alive connection before the request was written', { cause });
    this.name = 'ClosedBeforeWriteError';
  }
}

export function isClosedBeforeWrite(error: unknown): boolean {
  return error instanceof ClosedBeforeWriteError;
}

/** The sockets of our own agents: the only ones checked (the channel below is the whole process's). */
const watched = new WeakSet<object>();
let subscribed = false;
const probe = Buffer.alloc(1);

/**
 * Whether the server's end of the connection is already closed (its FIN or reset is in the kernel, not yet
 * read by the event loop), asked of the kernel at once: a non-blocking read of the socket's descriptor. On an
 * idle HTTP/1.1 connection nothing may be waiting but that: EAGAIN is an open connection; 0 bytes (end of
 * stream), an error, or bytes nobody asked for mean it cannot carry the request.
 */
function peerClosed(fd: number): unknown {
  const limit = Error.stackTraceLimit;
  // EAGAIN is the usual answer: its Error is not looked at, so it is not given a stack (a third of the cost).
  Error.stackTraceLimit = 0;
  try {
    return readSync(fd, probe, 0, 1, null) === 0 ? 'end of stream' : 'bytes before any request';
  } catch (error) {
    const code = (error as { code?: string }).code;
    return code === 'EAGAIN' || code === 'EWOULDBLOCK' ? undefined : error;
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Sockets whose next write is a request's first byte (undici's `sendHeaders` came, its first write not yet). */
const firstByteNext = new WeakSet<object>();

function descriptorOf(socket: Socket): number | undefined {
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/**
 * Closes the race undici leaves on a kept-alive connection (F13, and nginx reloading: its old workers close
 * their idle connections at once). undici looks for a pending close before it reuses an idle connection, but
 * only as of the event loop's last poll: a FIN that lands after that poll and before the write is read only
 * after the request went out, and the request fails with "other side closed" though the server had closed
 * the connection before any of it arrived (the server never saw it, but nothing on the client could tell).
 * Here the kernel is asked at the request's first write (undici publishes `sendHeaders` just before it, and
 * the socket's `write` is wrapped to look then); a connection found closed is destroyed with
 * ClosedBeforeWriteError before that write, so nothing of the request is written and `retryUnwritten` sends
 * it once more. What remains is a close that lands in the microseconds between this read and the write
 * system call: that request went out and is not sent again.
 *
 * Only plain TCP sockets with a descriptor are checked (not TLS, whose bytes are the TLS layer's, and not
 * Windows, which has no descriptor): those keep undici's own check alone.
 */
export function connectorCheckingBeforeWrite(connector: buildConnector.connector): buildConnector.connector {
  if (!subscribed) {
    subscribed = true;
    subscribe('undici:client:sendHeaders', (message) => {
      const { socket } = message as { socket: Socket };
      if (watched.has(socket)) firstByteNext.add(socket);
    });
  }
  return (options, callback) =>
    connector(options, (error, socket) => {
      if (socket && !('encrypted' in socket)) watch(socket);
      (callback as (error: Error | null, socket: Socket | null) => void)(error, socket);
    });
}

function watch(socket: Socket): void {
  const fd = descriptorOf(socket);
  if (fd === undefined) return;
  watched.add(socket);
  const write = socket.write;
  socket.write = function writeUnlessClosed(this: Socket, ...args: Parameters<Socket['write']>): boolean {
    if (firstByteNext.delete(this) && !this.destroyed) {
      const closed = peerClosed(fd);
      if (closed !== undefined) {
        this.destroy(new ClosedBeforeWriteError(closed));
        return false;
      }
    }
    return write.apply(this, args);
  } as Socket['write'];
}
