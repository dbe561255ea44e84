import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage } from '../mcp/types.js';
import type { AdvertisementProbe, MessageAdapter, WireKind } from '../codec/message-codec.js';
import { createWireCodecs, type TypedWireCodecs } from '../codec/wire-codecs.js';
import { resolveReceiveLimits, type ReceiveLimits } from '../wire/receive-limits.js';
import { FramingError } from '../wire/errors.js';
import { FrameReader } from '../wire/frame-reader.js';
import { LineReader } from '../wire/line-reader.js';
import { MIXED_STREAM_FRAME_LIMIT, MixedReader, startsJsonText, type MixedKind } from '../wire/mixed-reader.js';
import { messageWirePicker, type EncodingPolicy } from '../codec/encoding-policy.js';
import { runtime } from '../runtime/current.js';
import { receiveMessage, rejectMessage, type BadMessageSinks } from '../codec/bad-message.js';
import { StreamWriter } from './stream-writer.js';
import type { WireSelection } from '../wire-choice/wire-selection.js';
import type { WirePlan } from '../wire-choice/wire-plan.js';
import { ClientWireUpgrade, ServerWireUpgrade, type SwitchedStream } from './wire-upgrade.js';
import { JsonLineLimitError, lineLimitText, measuredLine } from './json-line-limit.js';

/** The limits on what a stdio transport reads (ReceiveLimits: `maxMessageBytes` is a frame's payload or a JSON line), and its encoding policy. */
export interface StreamWireOptions extends ReceiveLimits {
  /**
   * Once both sides agreed on a mixed stream in the wire upgrade (SPEC.md 7.4), which encoding each message
   * goes in: 'cheapest-cpu' (default) whichever costs less CPU for that message on this runtime, media as
   * bytes always MessagePack; 'smallest' MessagePack always; 'json' JSON lines always. Without that
   * agreement (a forced wire, a peer that does not know it) the connection keeps its one wire.
   */
  encoding?: EncodingPolicy;
}

export interface StreamConnectionEvents {
  message(message: JSONRPCMessage): void;
  error(error: Error): void;
  /** A framing error or end of input: the stream can carry no more messages. */
  broken(error: FramingError | undefined): void;
  /** The wire was chosen (at once when forced, at the first input byte when 'auto'). */
  wireChosen?(wire: WireKind): void;
  /** The wire upgrade (SPEC.md 7.1) settled the wire; handed on in order, before the answer that settled it. */
  wireSelected?(selection: WireSelection): void;
  /**
   * A JSON line over `maxJsonLineBytes`: what to send instead (an answer saying why, made with `text`), or
   * undefined to send nothing (the send then fails with a JsonLineLimitError).
   */
  lineTooLong?(message: JSONRPCMessage, text: string): JSONRPCMessage | undefined;
}

export interface StreamConnectionOptions extends StreamWireOptions {
  adapter?: MessageAdapter;
  /**
   * The connection's part in the stdio wire upgrade (SPEC.md 7.1), as planWire decided it. 'offer': requests
   * carry the offer until a result settles it. 'accept': offers on the JSON wire are accepted, and taken off
   * before the application sees them. 'ignore': offers are only taken off.
   */
  upgrade?: WirePlan['upgrade'];
  /** The longest JSON line the peer reads (undefined: no limit); longer ones go to `events.lineTooLong`. */
  maxJsonLineBytes?: number;
}

/**
 * One side of a byte-stream connection (stdio), on either wire. Reads with a FrameReader or a LineReader,
 * decodes and validates, handles bad messages as SPEC.md says, and writes through a StreamWriter. With the
 * wire upgrade (SPEC.md 7.1) it starts on JSON lines and moves to frames at the switch point, reading and
 * writing each side's switch separately.
 */
export class StreamConnection {
  private wire: WireKind | undefined;
  private frames: FrameReader | undefined;
  private lines: LineReader | undefined;
  private readonly codecs: TypedWireCodecs;
  private readonly writer: StreamWriter;
  private wireKnown: Promise<void>;
  private resolveWire!: () => void;
  private attached = false;
  private readonly maxMessageBytes: number;
  /** Events read but not yet handed on; see deliver(). */
  private readonly queue: Array<() => void> = [];
  private queueHead = 0;
  private pumping = false;
  private readonly offering: ClientWireUpgrade | undefined;
  private readonly accepting: ServerWireUpgrade | undefined;
  /** Server, after accepting: the client's first frame may start where any line would. */
  private framesMayFollow = false;
  /** After a switch to a mixed stream (SPEC.md 7.4): reads each message as a line or a frame. */
  private mixed: MixedReader | undefined;
  /** After a switch to a mixed stream: the encoding of each message sent. */
  private pickWire: ((message: unknown) => WireKind) | undefined;
  private readonly encoding: EncodingPolicy;
  private readonly maxJsonLineBytes: number | undefined;
  /** Client offering the upgrade: asks for what the accepting JSON answer could not advertise (SPEC.md 8.1). */
  private readonly probe: AdvertisementProbe | undefined;

  constructor(
    private readonly input: Readable,
    output: Writable,
    wire: WireKind | undefined,
    private readonly events: StreamConnectionEvents,
    options: StreamConnectionOptions = {},
  ) {
    const limits = resolveReceiveLimits(options);
    this.maxMessageBytes = limits.maxMessageBytes;
    this.encoding = options.encoding ?? 'cheapest-cpu';
    this.maxJsonLineBytes = options.maxJsonLineBytes;
    this.codecs = createWireCodecs({ maxDepth: limits.maxDepth, decodeBudget: limits.decodeBudget, adapter: options.adapter });
    this.writer = new StreamWriter(output);
    this.wireKnown = new Promise((resolve) => (this.resolveWire = resolve));
    if (options.upgrade === 'offer') {
      this.offering = new ClientWireUpgrade(true);
      this.probe = options.adapter?.advertisementProbe;
    } else if (options.upgrade) this.accepting = new ServerWireUpgrade(options.upgrade === 'accept');
    if (wire !== undefined) this.chooseWire(wire);
  }

  /** The wire in use, once known ('msgpack' after an upgrade, mixed or not). */
  get currentWire(): WireKind | undefined {
    return this.wire;
  }

  /** Whether the stream is mixed (SPEC.md 7.4): both sides agreed, and each message may be a line or a frame. */
  get isMixed(): boolean {
    return this.pickWire !== undefined;
  }

  attach(): void {
    if (this.attached) return;
    this.attached = true;
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onInputError);
  }

  detach(): void {
    if (!this.attached) return;
    this.attached = false;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onInputError);
  }

  /** Sends one message; waits for the wire to be known, and for the output to drain. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.wire) await this.wireKnown;
    // A request with bytes waits for the advertisement that decides whether they go as bin; others go on.
    const advertisement = this.probe?.ready(message);
    if (advertisement) await advertisement;
    await this.writer.write(() => this.encode(message));
  }

  /** Encodes on the wire in force when the message's turn comes, which is its place in the byte stream. */
  private encode(message: JSONRPCMessage): Uint8Array[] | Uint8Array | string {
    if (this.pickWire) return this.encodeMixed(message, this.pickWire(message));
    if (this.wire === 'msgpack') return this.codecs.msgpack.encodeFramePieces(message);
    if (this.offering?.open) return this.jsonLine(this.offering.outgoing(message));
    if (!this.accepting) return this.jsonLine(message);
    const { message: out, accepts } = this.accepting.outgoing(message);
    const line = this.jsonLine(out);
    if (accepts) {
      // This line is the server's last JSON-only line; the client switches once it has read it.
      this.wire = 'msgpack';
      if (accepts === 'mixed') this.turnMixed();
      else this.framesMayFollow = true;
    }
    return line;
  }

  /** One message on a mixed stream, as a JSON line or a frame. */
  private encodeMixed(message: JSONRPCMessage, wire: WireKind): Uint8Array[] | string {
    // The peer speaks MessagePack too: its line reader has the frame reader's cap, not a stock client's.
    if (wire === 'json') return this.codecs.json.encodeLine(message);
    const pieces = this.codecs.msgpack.encodeFramePieces(message);
    let bytes = 0;
    for (const piece of pieces) bytes += piece.length;
    // Such a frame's first byte would read as JSON text (SPEC.md 7.4); far over every default cap.
    if (bytes - 4 >= MIXED_STREAM_FRAME_LIMIT) throw new Error(`a ${bytes - 4}-byte frame cannot be sent on a mixed stream (limit ${MIXED_STREAM_FRAME_LIMIT - 1} bytes)`);
    return pieces;
  }

  /** A message as a JSON line, or what `lineTooLong` sends instead when the line is over the peer's limit. */
  private jsonLine(message: JSONRPCMessage): string | Uint8Array {
    const line = this.codecs.json.encodeLine(message);
    if (this.maxJsonLineBytes === undefined) return line;
    const measured = measuredLine(line, this.maxJsonLineBytes);
    if (typeof measured !== 'number') return measured;
    const text = lineLimitText(measured, this.maxJsonLineBytes);
    const instead = this.events.lineTooLong?.(message, text);
    if (!instead) throw new JsonLineLimitError(`a message was not sent: ${text}`);
    return this.codecs.json.encodeLine(instead);
  }

  /**
   * The switch to a mixed stream (SPEC.md 7.4), on either side: from here on each message is read as a line
   * or a frame by its first byte (a line already begun is finished as one), and sent in the encoding the
   * policy picks for it.
   */
  private turnMixed(): void {
    this.mixed = new MixedReader({ maxMessageBytes: this.maxMessageBytes }, this.lines);
    this.lines = undefined;
    this.pickWire = messageWirePicker(this.encoding, runtime.encodingBreakEven, this.codecs.msgpack.adapter);
  }

  /** Fails every later send, and those still waiting (for the wire to be known, or for a drain). */
  closeOutput(reason: Error): void {
    this.probe?.end();
    this.writer.close(reason);
    this.resolveWire();
  }

  private chooseWire(wire: WireKind): void {
    this.wire = wire;
    if (wire === 'msgpack') this.frames = new FrameReader({ maxMessageBytes: this.maxMessageBytes });
    else this.lines = new LineReader({ maxMessageBytes: this.maxMessageBytes });
    this.resolveWire();
    this.events.wireChosen?.(wire);
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (bytes.length === 0) return;
    if (!this.wire) this.chooseWire(detectWire(bytes[0]!));
    try {
      this.read(bytes);
    } catch (error) {
      if (error instanceof FramingError) {
        // Stop reading at once; report after the messages that came before the bad bytes.
        this.detach();
        this.deliver(() => {
          this.events.error(error);
          this.events.broken(error);
        });
      } else {
        this.deliver(() => this.events.error(error as Error));
      }
    }
  };

  /** Reads a chunk as lines, then as frames from the switch point on (SPEC.md 7.1), if it comes. */
  private read(bytes: Uint8Array): void {
    let rest: Uint8Array | undefined = bytes;
    while (rest !== undefined && rest.length > 0) {
      if (this.mixed) {
        this.mixed.push(rest, this.onMixed);
        return;
      }
      if (this.frames) {
        this.frames.push(rest, this.onPayload);
        return;
      }
      // A server that accepted looks at the first byte of every line: a frame starts with 0x00-0x03.
      if (this.framesMayFollow && this.lines!.pendingBytes === 0 && !startsJsonText(rest[0]!)) {
        this.readFrames();
        continue;
      }
      rest = this.lines!.push(rest, this.onLine);
    }
  }

  private readFrames(): void {
    this.lines = undefined;
    this.framesMayFollow = false;
    this.frames = new FrameReader({ maxMessageBytes: this.maxMessageBytes });
  }

  // Decoding waits for the message's turn too, so it sees the adapter its predecessors left in place.
  private readonly onPayload = (payload: Uint8Array): void => {
    this.deliver(() => this.decodePayload(payload));
  };

  private readonly onMixed = (bytes: Uint8Array, kind: MixedKind): void => {
    if (kind === 'frame') this.onPayload(bytes);
    else if (!isBlank(bytes)) this.deliver(() => this.decodeLine(bytes));
  };

  /** True stops the line reader after this line: the wire may change at the next byte. */
  private readonly onLine = (line: Uint8Array): boolean => {
    if (isBlank(line)) return this.framesMayFollow;
    if (this.offering?.open) return this.readOffered(line, this.offering);
    this.deliver(() => this.decodeLine(line));
    return this.framesMayFollow;
  };

  /**
   * Client, while its offer is open: each line is decoded as it is read (the messages before and at the
   * switch point are few), because the bytes after the server's accepting answer are frames, maybe in the
   * same chunk. Its predecessors in this state were decoded the same way, so the adapter sees them in order.
   */
  private readOffered(line: Uint8Array, offering: ClientWireUpgrade): boolean {
    let decoded: JSONRPCMessage;
    try {
      decoded = this.codecs.json.decodeMessage(line);
    } catch (error) {
      this.deliver(() => rejectMessage(error, this.badMessages));
      return false;
    }
    const { message, settled, stream } = offering.incoming(decoded);
    const own = settled ? this.probe?.settled(message, settled === 'msgpack') : undefined;
    if (settled) {
      const selection: WireSelection = { wire: settled, reason: settled === 'msgpack' ? 'upgrade-accepted' : 'upgrade-not-accepted' };
      this.deliver(() => this.events.wireSelected?.(selection));
    }
    this.deliver(() => this.events.message(message));
    if (settled !== 'msgpack') return false;
    this.wire = 'msgpack';
    this.switchReading(stream!);
    // Our own request goes first on the new wire, ahead of whatever the application sends after the answer.
    if (own) void this.send(own).catch((error: Error) => this.failProbe(error));
    return true;
  }

  private failProbe(error: Error): void {
    this.probe?.end();
    this.events.error(error);
  }

  private switchReading(stream: SwitchedStream): void {
    if (stream === 'mixed') this.turnMixed();
    else this.readFrames();
  }

  private decodePayload(payload: Uint8Array): void {
    const message = receiveMessage(this.codecs.msgpack, payload, this.badMessages);
    if (message) this.handOn(message);
  }

  private decodeLine(line: Uint8Array): void {
    const message = receiveMessage(this.codecs.json, line, this.badMessages);
    if (message) this.handOn(this.accepting ? this.accepting.incoming(message) : message);
  }

  /** To the application, unless it answers the transport's own request. */
  private handOn(message: JSONRPCMessage): void {
    if (!this.probe?.answers(message)) this.events.message(message);
  }

  /**
   * Hands events on in order, one per microtask. The SDK's Protocol runs notification handlers in a
   * microtask but handles a response at once, so when progress notifications and the final result arrive
   * in one chunk, delivering them back to back would let the result remove the progress handler before
   * the notifications reach it (they would be dropped). One event per microtask keeps the sender's order
   * all the way to the handlers. The queue empties before the next chunk is read (microtasks run before
   * I/O), so it holds at most one chunk's messages. A handler that throws is reported, never stalls it.
   */
  private deliver(event: () => void): void {
    this.queue.push(event);
    if (this.pumping) return;
    this.pumping = true;
    queueMicrotask(this.pump);
  }

  private readonly pump = (): void => {
    const event = this.queue[this.queueHead]!;
    this.queue[this.queueHead++] = undefined as unknown as () => void;
    try {
      event();
    } catch (error) {
      this.events.error(error instanceof Error ? error : new Error(String(error)));
    }
    // Queued only now, after whatever microtasks the event itself queued.
    if (this.queueHead < this.queue.length) {
      queueMicrotask(this.pump);
    } else {
      this.queue.length = 0;
      this.queueHead = 0;
      this.pumping = false;
    }
  };

  /** Where a message that cannot be accepted goes (handleBadMessage); other decode errors reach pump()'s report. */
  private readonly badMessages: BadMessageSinks = {
    report: (e) => this.events.error(e),
    deliver: (m) => this.events.message(m),
    reply: (m) => void this.send(m).catch((e: Error) => this.events.error(e)),
  };

  private readonly onEnd = (): void => {
    this.detach();
    this.probe?.end();
    let truncated: FramingError | undefined;
    try {
      this.frames?.end();
      this.lines?.end();
      this.mixed?.end();
    } catch (error) {
      truncated = error as FramingError;
    }
    // After every message read before the end.
    this.deliver(() => {
      if (truncated) this.events.error(truncated);
      this.events.broken(truncated);
    });
  };

  private readonly onInputError = (error: Error): void => {
    this.deliver(() => this.events.error(error));
  };
}

/**
 * SPEC.md, "Wire detection on stdio": newline-delimited JSON starts with "{" or "[" (perhaps after
 * whitespace or a UTF-8 byte order mark); a msgpack-v1 frame starts with the top byte of its length, which
 * is 0x00-0x03 for any frame under the 64 MiB default cap.
 */
export function detectWire(firstByte: number): WireKind {
  return startsJsonText(firstByte) ? 'json' : 'msgpack';
}

function isBlank(line: Uint8Array): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}
