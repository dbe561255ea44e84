import { FramingError } from '../../wire/errors.js';

/**
 * A reply body read whole, up to `maxBytes` (the client's `maxMessageBytes`): a declared Content-Length over
 * it is refused before a byte is read, a body that grows past it as soon as it does, its stream cancelled.
 * The refusal is a FramingError 'message-too-large' that names the cap; the connection goes on.
 */
export async function readCappedBody(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? undefined);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw overCap(`declares ${declared} bytes`, maxBytes);
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      await reader.cancel().catch(() => {});
      throw overCap(`passed ${received} bytes`, maxBytes);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(received);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

function overCap(what: string, maxBytes: number): FramingError {
  return new FramingError('message-too-large', `reply body ${what}, over the client's maxMessageBytes cap of ${maxBytes} bytes`);
}
