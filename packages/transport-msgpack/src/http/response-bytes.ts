import { giveBackAll } from '../native-bytes/lent-bytes.js';

/**
 * Responses whose body is already in memory (every reply but the streams). The Fetch spec makes
 * `new Response(bytes)` copy its body, and reading it back with arrayBuffer() copies again: for a 5 MiB
 * media result that is two copies and two extra 5 MiB buffers per call. Here the body is a stream over the
 * same bytes, and the bytes are remembered so the node:http adapter writes them directly. A body comes as
 * pieces (see CanonicalEncoder.encodePieces): large native bytes are pieces of their own, never copied.
 */
const bytesOfResponse = new WeakMap<Response, readonly Uint8Array[]>();
const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';

export function bytesResponse(pieces: readonly Uint8Array[], status: number, headers: Record<string, string>): Response {
  if (isBun) {
    // Bun does not copy a body given whole; several pieces are joined once, and lent bytes, copied, go back.
    if (pieces.length === 1) return new Response(pieces[0]! as Uint8Array<ArrayBuffer>, { status, headers });
    const body = Buffer.concat(pieces);
    giveBackAll(pieces);
    return new Response(body, { status, headers });
  }
  let length = 0;
  for (const piece of pieces) length += piece.byteLength;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) if (piece.byteLength > 0) controller.enqueue(piece);
      controller.close();
    },
  });
  const response = new Response(body, { status, headers: { ...headers, 'Content-Length': String(length) } });
  bytesOfResponse.set(response, pieces);
  return response;
}

/** The in-memory body of a response made by bytesResponse (or passed on with carryBytes), as pieces. */
export function responseBytes(response: Response): readonly Uint8Array[] | undefined {
  return bytesOfResponse.get(response);
}

/** Marks `wrapper` as having the same in-memory body as `original` (for responses that wrap another). */
export function carryBytes(original: Response, wrapper: Response): Response {
  const pieces = bytesOfResponse.get(original);
  if (pieces) bytesOfResponse.set(wrapper, pieces);
  return wrapper;
}
