/** Default cap on a request body, as in the SDK: 4 MiB. */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 4 * 1024 * 1024;
/** Most messages accepted in one batch, as in the SDK. */
export const MAX_BATCH_SIZE = 100;

export type BodyChunks = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export type BodyResult = { tooLarge: true } | { tooLarge: false; bytes: Uint8Array };

/**
 * Reads a request body up to maxBytes. A Content-Length over the cap is refused before a byte is read;
 * a body without one is counted as it arrives and abandoned (not drained) as soon as it passes the cap.
 */
export async function readBody(contentLength: string | null, body: BodyChunks | null, maxBytes: number): Promise<BodyResult> {
  if (Number(contentLength) > maxBytes) return { tooLarge: true };
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

export function resolveMaxBodyBytes(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_REQUEST_BODY_BYTES;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`maxMessageBytes must be a positive number of bytes, got ${String(value)}`);
  }
  return value;
}
