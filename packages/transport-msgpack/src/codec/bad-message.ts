import type { JSONRPCMessage } from '../mcp/types.js';
import { PayloadError } from '../wire/errors.js';

/** JSON-RPC error codes used when a message cannot be accepted. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

export interface BadMessageSinks {
  /** Sends a message back to the peer. */
  reply(message: JSONRPCMessage): void;
  /** Hands a message to the local side (the SDK's onmessage). */
  deliver(message: JSONRPCMessage): void;
  /** Reports the error (the transport's onerror). */
  report(error: Error): void;
}

/**
 * What a receiver does with a well-framed message it cannot accept (SPEC.md, "Bad input"). The connection
 * goes on; nothing else in flight is lost:
 * - it is always reported;
 * - if it was a request whose id could be read, the peer gets a JSON-RPC error for that id, so its call
 *   ends at once instead of timing out;
 * - if it was a response whose id could be read, the local side gets an error response for that id, so
 *   our own pending request fails at once with the reason instead of timing out.
 */
export function handleBadMessage(error: PayloadError, sinks: BadMessageSinks): void {
  sinks.report(error);
  const clues = error.clues;
  if (!clues || clues.id === undefined) return;
  const code = error.code === 'not-json-rpc' ? INVALID_REQUEST : PARSE_ERROR;
  const body = { code, message: error.message, data: { reason: error.code } };
  if (clues.hasMethod) {
    sinks.reply({ jsonrpc: '2.0', id: clues.id, error: body });
  } else if (clues.hasResultOrError) {
    sinks.deliver({ jsonrpc: '2.0', id: clues.id, error: { ...body, message: `unreadable response from peer: ${error.message}` } });
  }
}

/** What reads one message from its bytes: a codec (decodeMessage), or a reader that also knows control frames. */
export interface PayloadReader<T> {
  decodeMessage(bytes: Uint8Array): T;
}

/**
 * Decodes and validates one well-framed message with `reader`, for stdio and HTTP streams alike. One that
 * cannot be accepted (a PayloadError) goes to handleBadMessage, and the result is undefined.
 */
export function receiveMessage<T>(reader: PayloadReader<T>, bytes: Uint8Array, sinks: BadMessageSinks): T | undefined {
  try {
    return reader.decodeMessage(bytes);
  } catch (error) {
    rejectMessage(error, sinks);
    return undefined;
  }
}

/** A decode's error: a PayloadError goes to handleBadMessage; any other is no fault of the message, and is thrown on. */
export function rejectMessage(error: unknown, sinks: BadMessageSinks): void {
  if (!(error instanceof PayloadError)) throw error;
  handleBadMessage(error, sinks);
}
