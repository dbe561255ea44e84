import type { JSONRPCMessage } from '../mcp/types.js';
import { PayloadError } from '../wire/errors.js';
import { IDENTITY_ADAPTER, type CodecOptions, type MessageAdapter, type MessageCodec } from './message-codec.js';
import { validated } from './validate.js';
import { Buffer } from '../runtime/buffer.js';

/** The JSON wire, for peers that did not choose MessagePack: JSON text, exactly as the SDK sends it. */
export class JsonMessageCodec implements MessageCodec {
  readonly wire = 'json' as const;
  readonly mediaType = 'application/json';
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

  /** JSON text is one piece. */
  encodeBodyPieces(messages: JSONRPCMessage | JSONRPCMessage[]): string {
    return this.encodeBody(messages);
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

/** Buffer's UTF-8 decoding is cheaper than TextDecoder's for the short lines most messages are. */
function utf8Text(bytes: Uint8Array): string {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return buffer.toString('utf8');
}
