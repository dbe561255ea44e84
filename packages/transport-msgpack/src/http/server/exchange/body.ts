/** Most messages accepted in one batch, as in the SDK. */
export const MAX_BATCH_SIZE = 100;

export type BodyChunks = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export type BodyResult = { tooLarge: true } | { tooLarge: false; bytes: Uint8Array };

/** Where a body is read from: a request's headers, its body as chunks, and (a web Request's) the whole of it at once. */
export interface BodySource {
  readonly headers: { get(name: string): string | null };
  readonly body: BodyChunks | null;
  arrayBuffer?(): Promise<ArrayBuffer>;
}

/**
 * Reads a request body up to maxBytes. A Content-Length over the cap is refused before a byte is read;
 * a body without one is counted as it arrives and abandoned (not drained) as soon as it passes the cap.
 * One whose Content-Length bounds it is read in one call where the request can (a web Request's
 * arrayBuffer()), and its `body` is not touched: iterating a web stream from JavaScript costs a promise and a
 * chunk per read, and on Bun asking for `body` at all makes the stream (packages/bench/measure/README.md).
 */
export async function readBody(req: BodySource, maxBytes: number): Promise<BodyResult> {
  const contentLength = req.headers.get('content-length');
  if (Number(contentLength) > maxBytes) return { tooLarge: true };
  if (contentLength !== null && req.arrayBuffer !== undefined) {
    const bytes = new Uint8Array(await req.arrayBuffer());
    // A Request made in memory may carry more than its Content-Length says.
    return bytes.byteLength > maxBytes ? { tooLarge: true } : { tooLarge: false, bytes };
  }
  const body = req.body;
  if (body === null) return { tooLarge: false, bytes: new Uint8Array(0) };
  const chunks: Uint8Array[] = [];
  let received = 0;
  // Leaving the loop early cancels a web stream and releases a node request (see node-adapter.ts).
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    received += chunk.byteLength;
    if (received > maxBytes) return { tooLarge: true };
    chunks.push(chunk);
  }
  if (chunks.length === 1) return { tooLarge: false, bytes: chunks[0]! };
  const bytes = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { tooLarge: false, bytes };
}
