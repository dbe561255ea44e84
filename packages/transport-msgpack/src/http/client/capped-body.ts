import { FramingError } from '../../wire/errors.js';
import { joinPieces } from '../../wire/pieces.js';
import { Buffer } from '../../runtime/buffer.js';

/**
 * A reply body read whole, up to `maxBytes` (the client's `maxMessageBytes`): a declared Content-Length over
 * it is refused before a byte is read, a body that grows past it as soon as it does, its stream cancelled.
 * The refusal is a FramingError 'message-too-large' that names the cap; the connection goes on.
 */
export async function readCappedBody(response: Response, maxBytes: number): Promise<Uint8Array> {
  if (!(await readableWhole(response, maxBytes))) return readCounted(response.body, maxBytes);
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.byteLength > maxBytes) throw overCap(`passed ${bytes.byteLength} bytes`, maxBytes);
  return bytes;
}

/**
 * readCappedBody for a JSON body: where it is read whole, as text (the runtime's own UTF-8 decoding, no bytes
 * kept: on Bun 17% less CPU than the bytes and Buffer's toString at 50 KB, 25% at 1 MB), which the JSON
 * codec takes as it is; otherwise the bytes, counted as they arrive.
 */
export async function readCappedJson(response: Response, maxBytes: number): Promise<Uint8Array | string> {
  if (!(await readableWhole(response, maxBytes))) return readCounted(response.body, maxBytes);
  const text = await response.text();
  // A UTF-16 unit is one to three UTF-8 bytes: only a text that may pass the cap is measured.
  if (text.length > maxBytes || (text.length * 3 > maxBytes && Buffer.byteLength(text, 'utf8') > maxBytes)) throw overCap(`passed ${Buffer.byteLength(text, 'utf8')} bytes`, maxBytes);
  return text;
}

/**
 * Refuses a body that declares more than the cap (cancelled unread); true where the runtime may read the
 * body whole. A body of a declared length within the cap, not content-coded, cannot pass the cap over HTTP
 * (the framing ends it there), so the runtime reads it natively: a JavaScript reader's chunks cost more, most
 * on Bun, where they were a quarter of our client's CPU on 50 KB replies (docs/MEASUREMENTS.md, Lab notes,
 * "Our client on its defaults against the stock client"). Its size is checked after all, for a caller's fetch that
 * does not keep to the framing. A coded body (gzip) may decode to far more than it declares: read chunk by
 * chunk, as is a body that declares no length.
 */
async function readableWhole(response: Response, maxBytes: number): Promise<boolean> {
  const declared = Number(response.headers.get('content-length') ?? undefined);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw overCap(`declares ${declared} bytes`, maxBytes);
  }
  return response.body !== null && declared >= 0 && !isContentCoded(response.headers.get('content-encoding'));
}

/** A body read chunk by chunk, refused as soon as it passes the cap (its stream cancelled). */
async function readCounted(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
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
  return chunks.length === 1 ? chunks[0]! : joinPieces(chunks, received).buffer;
}

/** Whether a Content-Encoding other than identity applies: the runtime's fetch decodes it, so the declared length is not the body's. */
function isContentCoded(encoding: string | null): boolean {
  const coding = encoding?.trim().toLowerCase();
  return coding !== undefined && coding !== '' && coding !== 'identity';
}

function overCap(what: string, maxBytes: number): FramingError {
  return new FramingError('message-too-large', `reply body ${what}, over the client's maxMessageBytes cap of ${maxBytes} bytes`);
}
