import type { JSONRPCMessage } from 'mcp-msgpack-transport';
import type { Log } from '../log.js';

/** Unread bytes a GET stream may hold at the bridge before the child's notifications wait instead. */
const STREAM_HIGH_WATER_BYTES = 1024 * 1024;
/** Held notifications sent per read of the GET stream, so a flush cannot outrun its reader. */
const FLUSH_BATCH = 32;
/** Bytes of held notifications (JSON text length) a session keeps at most. */
const MAX_HELD_BYTES = 8 * 1024 * 1024;

interface StandaloneStream {
  readonly backedUp: boolean;
}

/** Where the notifications come from, when it can be made to wait: a session's own child's stdout. */
export interface PausableSource {
  pause(): void;
  resume(): void;
}

/**
 * Where a session's notifications that belong to no request go: its client's GET stream. Without a GET
 * stream open, or with one its client does not read, they are held here, up to a count and a size. Beyond
 * that, with a GET stream open and a source that can wait (a session's own child), the child's output is no
 * longer read until the client reads again: the child slows down, nothing is lost, and only this session's
 * calls wait behind it. Otherwise (no GET stream, or --shared, whose child serves every session) they are
 * dropped and counted, and the count is said on stderr (when it starts and when the client reads again).
 * Requests of the child are never held or dropped: they go on to the transport.
 */
export class StandaloneOutbox {
  private readonly held: JSONRPCMessage[] = [];
  private heldBytes = 0;
  private stream: StandaloneStream | undefined;
  private dropped = 0;
  /** Notifications dropped over the session's life. */
  droppedTotal = 0;
  /** The child's output, once there is a child to wait (undefined under --shared). */
  source: PausableSource | undefined;
  private paused = false;
  /** Bytes the source handed on in this turn of the event loop, whose messages are not delivered yet. */
  private unsettled = 0;
  private settling = false;

  constructor(
    private readonly send: (message: JSONRPCMessage) => void,
    private readonly maxHeld: number,
    private readonly log: Log,
    private readonly name: () => string,
  ) {}

  deliver(message: JSONRPCMessage): void {
    if (this.stream && !this.stream.backedUp && this.held.length === 0) return this.send(message);
    const full = this.held.length >= this.maxHeld || this.heldBytes >= MAX_HELD_BYTES;
    // A child made to wait still hands on what its last read held (one read's worth), kept so nothing is
    // lost; twice the bound is the end of that, whatever the child does.
    const canWait = this.stream !== undefined && this.source !== undefined;
    const pastWaiting = this.held.length >= 2 * this.maxHeld || this.heldBytes >= 2 * MAX_HELD_BYTES;
    if (!full || (canWait && !pastWaiting)) {
      this.held.push(message);
      this.heldBytes += JSON.stringify(message).length;
      if (canWait && !this.paused && (this.held.length >= this.maxHeld || this.heldBytes >= MAX_HELD_BYTES)) this.pauseSource();
      return;
    }
    this.droppedTotal++;
    if (this.dropped++ === 0) {
      const why = this.stream ? 'its client is not reading its GET stream' : 'its client has no GET stream open';
      this.log(`${this.name()}: ${why}; the server's notifications past ${this.held.length} held are dropped (counted)`);
    }
  }

  /**
   * The source read a chunk (called synchronously, in its 'data' event). Its messages reach deliver() only
   * later, in microtasks, and a runtime may hand on everything it read ahead in one burst of 'data' events
   * (Bun does, under load: megabytes) before the first of them is delivered. So the wait is decided here too,
   * by bytes, while a pause still stops the rest of the burst. Such a pause is provisional: the burst may be a
   * large response, not notifications, so once its messages are delivered the source is read again unless
   * they were held (nothing else would resume it: the GET stream pulls only when it has something to send).
   */
  read(bytes: number): void {
    this.unsettled += bytes;
    if (!this.settling) {
      this.settling = true;
      // After the microtasks that deliver this burst's messages.
      setImmediate(() => {
        this.settling = false;
        this.unsettled = 0;
        this.resumeIfDrained();
      });
    }
    // Only while the client is not keeping up: with nothing held and room in the stream, what comes goes on.
    const lagging = this.stream !== undefined && (this.stream.backedUp || this.held.length > 0);
    if (lagging && this.source !== undefined && !this.paused && this.heldBytes + this.unsettled >= MAX_HELD_BYTES) this.pauseSource();
  }

  /** Reads the source again once what is held is down to half the bound. */
  private resumeIfDrained(): void {
    if (this.paused && this.held.length <= this.maxHeld / 2 && this.heldBytes <= MAX_HELD_BYTES / 2) this.resume();
  }

  private pauseSource(): void {
    this.paused = true;
    this.source!.pause();
    this.log(`${this.name()}: its client is not reading its GET stream; ${this.held.length} notifications held, and the server's output is not read until it does`);
  }

  /** The child's output is read again (the client reads, its stream closed, or the session ends). */
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.source?.resume();
  }

  opened(stream: StandaloneStream): void {
    this.stream = stream;
    this.flush();
  }

  closed(stream: StandaloneStream): void {
    if (this.stream !== stream) return;
    this.stream = undefined;
    // Nobody to wait for: the child goes on, and what no longer fits is dropped and counted.
    this.resume();
  }

  /** The GET stream has room: a batch of what is held goes out. */
  flush(): void {
    for (let sent = 0; sent < FLUSH_BATCH && this.stream && !this.stream.backedUp && this.held.length > 0; sent++) {
      const message = this.held.shift()!;
      this.heldBytes -= JSON.stringify(message).length;
      this.send(message);
    }
    this.resumeIfDrained();
    if (this.held.length === 0 && this.dropped > 0) {
      this.log(`${this.name()}: ${this.dropped} notifications of the server were dropped while its client did not read them`);
      this.dropped = 0;
    }
  }
}

/**
 * The GET stream's body, read ahead up to a high-water mark: while its client reads, the outbox sends; once
 * a megabyte waits unread, the outbox holds (and then drops) instead of letting the stream grow.
 */
export function watchStandalone(response: Response, outbox: StandaloneOutbox): Response {
  const source = response.body;
  if (!source || response.status !== 200) return response;
  const reader = source.getReader();
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  const stream: StandaloneStream = {
    get backedUp() {
      return controller === undefined || (controller.desiredSize ?? 0) <= 0;
    },
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      async pull(c) {
        outbox.flush();
        try {
          const { done, value } = await reader.read();
          if (done) {
            outbox.closed(stream);
            c.close();
          } else c.enqueue(value);
        } catch (error) {
          outbox.closed(stream);
          c.error(error);
        }
      },
      cancel(reason) {
        outbox.closed(stream);
        return reader.cancel(reason);
      },
    },
    { highWaterMark: STREAM_HIGH_WATER_BYTES, size: (chunk) => chunk.byteLength },
  );
  outbox.opened(stream);
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
