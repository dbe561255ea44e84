/**
 * Responses whose body is already in memory (every reply but the streams). The Fetch spec makes
 * `new Response(bytes)` copy its body, and reading it back with arrayBuffer() copies again: for a 5 MiB
 * media result that is two copies and two extra 5 MiB buffers per call. Here the body is a one-chunk
 * stream over the same bytes, and the bytes are remembered so the node:http adapter writes them directly.
 */
const bytesOfResponse = new WeakMap<Response, Uint8Array>();
const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined';

export function bytesResponse(bytes: Uint8Array, status: number, headers: Record<string, string>): Response {
  if (isBun) return new Response(bytes as Uint8Array<ArrayBuffer>, { status, headers }); // Bun does not copy
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
  const response = new Response(body, { status, headers: { ...headers, 'Content-Length': String(bytes.byteLength) } });
  bytesOfResponse.set(response, bytes);
  return response;
}

/** The in-memory body of a response made by bytesResponse (or passed on with carryBytes). */
export function responseBytes(response: Response): Uint8Array | undefined {
  return bytesOfResponse.get(response);
}

/** Marks `wrapper` as having the same in-memory body as `original` (for responses that wrap another). */
export function carryBytes(original: Response, wrapper: Response): Response {
  const bytes = bytesOfResponse.get(original);
  if (bytes) bytesOfResponse.set(wrapper, bytes);
  return wrapper;
}
