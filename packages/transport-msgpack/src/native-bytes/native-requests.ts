/**
 * Marks a request whose result should keep native bytes (Uint8Array) instead of base64 strings.
 *
 * The mark is a symbol-keyed property: the SDK builds the JSON-RPC message with `{ ...request, ... }`,
 * which copies it, and neither JSON nor msgpack-v1 encodes symbol keys, so it never reaches the wire.
 * If a future SDK dropped it, the result would simply arrive as base64, which the native helpers'
 * schemas also accept (decoding it): slower, never wrong.
 */
export const NATIVE_RESULT = Symbol.for('mcp-msgpack-transport.native-result');

export function markNative<T extends object>(request: T): T {
  return Object.assign(request, { [NATIVE_RESULT]: true });
}

export function isMarkedNative(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as Record<symbol, unknown>)[NATIVE_RESULT] === true;
}
