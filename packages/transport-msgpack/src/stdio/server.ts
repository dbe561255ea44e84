import process from 'node:process';
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, RequestId, Transport } from '../mcp/types.js';
import { InFlightIds, duplicateIdError } from '../jsonrpc/in-flight-ids.js';
import type { WireKind } from '../codec/message-codec.js';
import { StreamConnection, type StreamWireOptions } from '../connection/stream-connection.js';
import type { WireChoice } from '../wire-choice/wire-selection.js';
import { planWire } from '../wire-choice/wire-plan.js';
import { adapterFromOption, type NativeBytesOptions } from '../native-bytes/adapter.js';
import { DEFAULT_MAX_JSON_LINE_BYTES, JsonLineLimitError, oversizeAnswer } from '../connection/json-line-limit.js';

export { JsonLineLimitError, STOCK_STDIO_LINE_CAP, DEFAULT_MAX_JSON_LINE_BYTES } from '../connection/json-line-limit.js';

export interface StdioMsgpackServerOptions extends StreamWireOptions {
  /**
   * 'auto' (default): answer in whatever the client speaks, detected from its first byte, so stock JSON
   * clients and msgpack-v1 clients both work with one server binary, and accept the wire upgrade a JSON
   * client offers (SPEC.md 7.1). Or force 'msgpack' / 'json' (offers are then declined).
   */
  wire?: WireChoice;
  /**
   * The native-bytes extension (SPEC.md): confirm it to msgpack clients that offer it, and send the media
   * of nativeImage() & co. as bin (or as base64 to everyone else). Default: not negotiated, but
   * placeholders from nativeImage() & co. are still sent as base64; false: no adapter at all.
   */
  nativeBytes?: boolean | NativeBytesOptions;
  /**
   * The longest JSON line sent to a client on the JSON wire. Default: 10 MiB less 64 KiB, because the MCP
   * SDKs' stdio clients drop the whole connection on a line over 10 MiB. A longer answer is replaced by one
   * saying why (a tool error for tools/call, a JSON-RPC error otherwise) and reported through `onerror` (a
   * JsonLineLimitError); the connection goes on. Infinity: no limit. A MessagePack client has no such limit.
   */
  maxJsonLineBytes?: number;
}

/**
 * Drop-in for the SDK's StdioServerTransport (same constructor shape) that also speaks msgpack-v1.
 *
 * When stdin ends the transport closes (after reporting a truncated message if one was cut off); a framing
 * error (a header over the cap, a JSON line over the cap) also closes it, since the stream cannot be
 * resynchronised. A bad message inside a good frame is reported and answered, and the connection goes on.
 */
export class StdioMsgpackServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly connection: StreamConnection;
  private readonly inFlight = new InFlightIds();
  /** The method each answer being sent answers, while it waits for its turn to be encoded. */
  private readonly answering = new WeakMap<object, string>();
  private started = false;
  private closed = false;

  constructor(
    private readonly stdin: Readable = process.stdin,
    stdout: Writable = process.stdout,
    options: StdioMsgpackServerOptions = {},
  ) {
    const plan = planWire(options.wire, 'stdio-server');
    this.connection = new StreamConnection(
      stdin,
      stdout,
      plan.start,
      {
        message: (message) => this.receive(message),
        error: (error) => this.onerror?.(error),
        broken: () => void this.close(),
        lineTooLong: (message, text) => {
          this.onerror?.(new JsonLineLimitError(text));
          return oversizeAnswer(message, this.answering.get(message), text);
        },
      },
      {
        ...options,
        adapter: adapterFromOption('server', options.nativeBytes),
        upgrade: plan.upgrade,
        maxJsonLineBytes: lineLimit(options.maxJsonLineBytes),
      },
    );
    stdout.on('error', this.onOutputError);
  }

  /** The wire the server writes ('msgpack' or 'json'), once the client's first byte has arrived; 'msgpack' after an upgrade. */
  get wire(): WireKind | undefined {
    return this.connection.currentWire;
  }

  async start(): Promise<void> {
    if (this.started) {
      throw new Error('StdioMsgpackServerTransport already started! If using Server class, note that connect() calls start() automatically.');
    }
    this.started = true;
    this.connection.attach();
    this.stdin.resume();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('Not connected'));
    const method = this.inFlight.settle(message);
    if (method !== undefined) this.answering.set(message, method);
    return this.connection.send(message);
  }

  /** A request whose id is still in flight on this connection is answered with an error at once, not handed on. */
  private receive(message: JSONRPCMessage): void {
    if (this.inFlight.admit(message)) return this.onmessage?.(message);
    const id = (message as { id: RequestId }).id;
    const error = duplicateIdError(id, 'on this connection');
    this.onerror?.(new Error(error.message));
    void this.connection.send({ jsonrpc: '2.0', id, error } as JSONRPCMessage).catch((e: Error) => this.onerror?.(e));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.connection.detach();
    this.connection.closeOutput(new Error('Not connected: transport closed'));
    // Pause stdin only if nobody else reads it, as the SDK's transport does.
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.onclose?.();
  }

  private readonly onOutputError = (error: Error): void => {
    // EPIPE and friends: the client is gone; nothing more can be sent.
    this.onerror?.(error);
    void this.close();
  };
}

/** The option as the connection takes it: undefined for no limit. */
function lineLimit(option: number | undefined): number | undefined {
  if (option === undefined) return DEFAULT_MAX_JSON_LINE_BYTES;
  return option === Infinity ? undefined : option;
}
