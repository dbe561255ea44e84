import { giveBack, giveBackAll } from '../native-bytes/lent-bytes.js';
import { inMemoryBody } from './response-bytes.js';

/** Smaller bodies go to Bun.serve whole: copying a few KB costs less than a stream. */
const WHOLE_BODY_BYTES = 64 * 1024;
/**
 * Largest chunk handed to Bun.serve at once. Bun writes a chunk straight to the socket and copies what the
 * socket did not take into a buffer of its own; on loopback a 1 MiB chunk mostly fits, a 5 MiB one leaves
 * megabytes to copy (measured on Bun 1.4.5, 5 MiB body: 1.1-1.3 ms of server CPU in 1 MiB chunks, 2.0 ms
 * as one chunk, 2.5 ms as a Blob or a Uint8Array body, which Bun copies whole first).
 */
const SLICE_BYTES = 1024 * 1024;

/**
 * What Bun.serve gets for a response of the handler: its counterpart of writeNodeResponse. A reply made
 * by bytesResponse goes out without a copy of its own: Bun.serve copies any body it is given whole
 * (`new Response(bytes)`, a Blob), so a large one is streamed in slices instead. Lent bytes (a
 * NativeBytesPool's, the encoder's) go back as soon as Bun.serve has taken them: Bun.serve reads a
 * stream one chunk at a time and asks for the next only once the last one is written or copied into its
 * own buffer. That holds for Bun.serve's own reader only (a JavaScript reader such as arrayBuffer() may
 * keep chunks), which is why this runs in listenBun and not in bytesResponse. Other responses pass as
 * they are.
 */
export function bunServeResponse(response: Response): Response {
  const pieces = inMemoryBody(response);
  if (pieces === undefined || typeof pieces === 'string') return response;
  // Nobody reads the original body now: cancelling it tells wrappers (afterBody) that the body is done.
  void response.body?.cancel().catch(() => {});
  const init = { status: response.status, headers: response.headers };
  let length = 0;
  for (const piece of pieces) length += piece.byteLength;
  if (length >= WHOLE_BODY_BYTES) return new Response(slicedBody(pieces), init);
  const whole = Buffer.concat(pieces, length);
  giveBackAll(pieces); // copied
  return new Response(whole, init);
}

/** The pieces as a pull stream of slices; each piece goes back on the pull after its last slice. */
export function slicedBody(pieces: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let index = 0;
  let offset = 0;
  let taken: Uint8Array | undefined;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (taken !== undefined) giveBack(taken);
        taken = undefined;
        while (index < pieces.length && offset >= pieces[index]!.byteLength) {
          index++;
          offset = 0;
        }
        const piece = pieces[index];
        if (piece === undefined) return controller.close();
        const end = Math.min(piece.byteLength, offset + SLICE_BYTES);
        controller.enqueue(offset === 0 && end === piece.byteLength ? piece : piece.subarray(offset, end));
        offset = end;
        if (end === piece.byteLength) taken = piece;
      },
    },
    // Nothing read ahead: a pull then means the chunk before it has been taken.
    { highWaterMark: 0 },
  );
}
