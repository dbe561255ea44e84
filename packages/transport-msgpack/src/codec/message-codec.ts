import type { JSONRPCMessage } from '../mcp/types.js';
import { checkJsonRpcMessage } from '../jsonrpc/validate.js';
import type { DecodeBudget } from '../wire/constants.js';
import { MsgpackDecoder } from '../wire/decoder.js';
import { CanonicalEncoder } from '../wire/encoder.js';
import { PayloadError, type MessageClues } from '../wire/errors.js';

export type WireKind = 'msgpack' | 'json';

/**
 * Where the native-bytes extension (or any other message-level layer) plugs into a connection: every
 * outgoing message passes through toWire before encoding, every decoded value through fromWire before
 * validation. The identity adapter is used when nothing is negotiated.
 */
export interface MessageAdapter {
  toWire(message: JSONRPCMessage, wire: WireKind): unknown;
  fromWire(value: unknown, wire: WireKind, containsBin: boolean): unknown;
  /** Whether a MessagePack bin may arrive on this connection right now. */
  readonly binAllowed: boolean;
}

export const IDENTITY_ADAPTER: MessageAdapter = {
  toWire: (message) => message,
  fromWire: (value) => value,
  binAllowed: false,
};

export interface CodecOptions {
  /** Deepest nesting accepted in a received message. Default 128. */
  maxDepth?: number;
  /** The decode budget for received messages (SPEC.md 4.1.9). Default DEFAULT_DECODE_BUDGET. */
  decodeBudget?: Partial<DecodeBudget>;
  adapter?: MessageAdapter;
}

/** Encodes and decodes JSON-RPC messages as msgpack-v1 payloads and frames. No JSON text anywhere. */
export class MsgpackMessageCodec {
  readonly wire = 'msgpack' as const;
  adapter: MessageAdapter;
  private readonly encoder = new CanonicalEncoder();
  private readonly decoder: MsgpackDecoder;

  constructor(options: CodecOptions = {}) {
    this.adapter = options.adapter ?? IDENTITY_ADAPTER;
    this.decoder = new MsgpackDecoder({ maxDepth: options.maxDepth, decodeBudget: options.decodeBudget });
  }

  /** Length prefix + payload, ready for a byte stream. */
  encodeFrame(message: JSONRPCMessage): Uint8Array {
    return this.encoder.encodeFrame(this.adapter.toWire(message, 'msgpack'));
  }

  /** encodeFrame as pieces to write in order: large bins (native bytes) go out by reference, uncopied. */
  encodeFramePieces(message: JSONRPCMessage): Uint8Array[] {
    return this.encoder.encodeFramePieces(this.adapter.toWire(message, 'msgpack'));
  }

  /** A bare payload (an HTTP body): one message, or an array of them for a batch. */
  encodeBody(messages: JSONRPCMessage | JSONRPCMessage[]): Uint8Array {
    return this.encoder.encode(this.bodyValue(messages));
  }

  /** encodeBody as pieces, as encodeFramePieces. */
  encodeBodyPieces(messages: JSONRPCMessage | JSONRPCMessage[]): Uint8Array[] {
    return this.encoder.encodePieces(this.bodyValue(messages));
  }

  private bodyValue(messages: JSONRPCMessage | JSONRPCMessage[]): unknown {
    return Array.isArray(messages) ? messages.map((m) => this.adapter.toWire(m, 'msgpack')) : this.adapter.toWire(messages, 'msgpack');
  }

  /** Decodes one payload into a validated message; throws PayloadError (with clues) otherwise. */
  decodeMessage(payload: Uint8Array): JSONRPCMessage {
    return validated(this.decodeValue(payload));
  }

  /** Decodes one payload (a message or a batch array) without validating it. */
  decodeValue(payload: Uint8Array): unknown {
    const { value, containsBin } = this.decoder.decode(payload, this.adapter.binAllowed);
    return this.adapter.fromWire(value, 'msgpack', containsBin);
  }
}

/** The JSON wire, for peers that did not choose MessagePack: JSON text, exactly as the SDK sends it. */
export class JsonMessageCodec {
  readonly wire = 'json' as const;
  adapter: MessageAdapter;

  constructor(options: CodecOptions = {}) {
    this.adapter = options.adapter ?? IDENTITY_ADAPTER;
  }

  encodeLine(message: JSONRPCMessage): string {
    return JSON.stringify(this.adapter.toWire(message, 'json')) + '\n';
  }

  encodeBody(messages: JSONRPCMessage | JSONRPCMessage[]): string {
    const value = Array.isArray(messages) ? messages.map((m) => this.adapter.toWire(m, 'json')) : this.adapter.toWire(messages, 'json');
    return JSON.stringify(value);
  }

  decodeMessage(bytes: Uint8Array | string): JSONRPCMessage {
    return validated(this.decodeValue(bytes));
  }

  decodeValue(bytes: Uint8Array | string): unknown {
    let value: unknown;
    try {
      value = JSON.parse(typeof bytes === 'string' ? bytes : utf8Text(bytes));
    } catch (error) {
      throw new PayloadError('malformed-json', `invalid JSON: ${(error as Error).message}`);
    }
    return this.adapter.fromWire(value, 'json', false);
  }
}

/** Checks a decoded value as JSON-RPC; on failure the error carries what can be read of it. */
export function validated(value: unknown): JSONRPCMessage {
  const problem = checkJsonRpcMessage(value);
  if (problem !== undefined) throw new PayloadError('not-json-rpc', `not a JSON-RPC 2.0 message: ${problem}`, cluesOf(value));
  return value as JSONRPCMessage;
}

export function cluesOf(value: unknown): MessageClues {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { hasMethod: false, hasResultOrError: false };
  const record = value as Record<string, unknown>;
  const id = record.id;
  return {
    id: typeof id === 'string' || Number.isSafeInteger(id) ? (id as string | number) : undefined,
    hasMethod: 'method' in record,
    hasResultOrError: 'result' in record || 'error' in record,
  };
}

/** Buffer's UTF-8 decoding is cheaper than TextDecoder's for the short lines most messages are. */
function utf8Text(bytes: Uint8Array): string {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return buffer.toString('utf8');
}
