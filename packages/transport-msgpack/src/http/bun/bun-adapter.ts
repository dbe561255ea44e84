import { giveBack, giveBackAll } from '../../buffers/lent-bytes.js';
import { WHOLE_REPLY_BYTES, holdsCopy, inMemoryBody } from '../server/exchange/responses.js';
import { MSGPACK_STREAM_MEDIA_TYPE, SSE_MEDIA_TYPE, mediaTypeEssence } from '../media.js';

/**
 * Largest chunk handed to Bun.serve at once. Bun writes a chunk straight to the socket and copies what the
 * socket did not take into a buffer of its own; on loopback a 1 MiB chunk mostly fits, a 5 MiB one leaves
 * megabytes to copy. The figures are in the package README ("Large media cost no copy"); the media venue
 * measures this path (`npx mcp-msgpack-bench --runtime bun --scenario media --transport http`).
 */
const SLICE_BYTES = 1024 * 1024;

/**
 * What Bun.serve gets for a response of the handler: its counterpart of writeNodeResponse. A reply made
 * by bytesResponse goes out without a copy of its own: Bun.serve copies any body it is given whole
 * (`new Response(bytes)`, a Blob), so a large one is streamed in slices instead. Reply streams (SSE, the
 * MessagePack stream) pass through the same slicing. Lent bytes (a NativeBytesPool's, the encoder's) go
 * back as soon as Bun.serve has taken them: Bun.serve reads a stream one chunk at a time and asks for the
 * next only once the last one is written or copied into its own buffer. That holds for Bun.serve's own
 * reader only (a JavaScript reader such as arrayBuffer() may keep chunks), which is why this runs in
 * handleBun and not where responses are made. Other responses pass as they are.
 *
 * `taken` (listenBun's keep-alive timeout) is called once Bun.serve has taken the whole body: at once for a
 * body it gets whole, after the last slice (or a cancel) for one it gets in slices.
 */
export function bunServeResponse(response: Response, taken: () => void = () => {}): Response {
  const init = { status: response.status, headers: response.headers };
  const pieces = inMemoryBody(response);
  if (pieces === undefined || typeof pieces === 'string') {
    const type = mediaTypeEssence(response.headers.get('content-type'));
    if (!response.body || (type !== SSE_MEDIA_TYPE && type !== MSGPACK_STREAM_MEDIA_TYPE)) {
      taken();
      return response;
    }
    const reader = response.body.getReader();
    return new Response(
      slicedStream(
        async () => {
          const { done, value } = await reader.read();
          return done ? undefined : value;
        },
        taken,
        (reason) => reader.cancel(reason),
      ),
      init,
    );
  }
  // Smaller bodies go to Bun.serve whole: copying a few KB costs less than a stream. bytesResponse made
  // such a one whole already (its Response holds a copy), so it goes as it is.
  if (holdsCopy(response)) {
    giveBackAll(pieces);
    taken();
    return response;
  }
  // Nobody reads the original body now: cancelling it tells wrappers (afterBody) that the body is done.
  void response.body?.cancel().catch(() => {});
  let length = 0;
  for (const piece of pieces) length += piece.byteLength;
  if (length < WHOLE_REPLY_BYTES) {
    // new Response(bytes) copies them on Bun (into a store of its own, not a JavaScript buffer), so one
    // piece is handed over as it is: a Buffer.concat first would be a second copy and a fresh
    // ArrayBuffer per reply for the collector.
    const response = new Response((pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, length)) as BodyInit, init);
    giveBackAll(pieces); // copied
    taken();
    return response;
  }
  let next = 0;
  return new Response(
    slicedStream(() => pieces[next++], taken),
    init,
  );
}

/**
 * The chunks `nextPiece` gives (undefined: no more) as a pull stream, in slices of at most SLICE_BYTES;
 * each piece goes back (giveBack) on the pull after its last slice; `ended` is called once, when the last
 * slice has been taken or the stream is cancelled.
 */
function slicedStream(nextPiece: () => Uint8Array | undefined | Promise<Uint8Array | undefined>, ended: () => void, cancel?: (reason: unknown) => Promise<void>): ReadableStream<Uint8Array> {
  let piece: Uint8Array | undefined;
  let offset = 0;
  let over = false;
  const finish = () => {
    if (over) return;
    over = true;
    ended();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (piece !== undefined && offset >= piece.byteLength) {
          giveBack(piece);
          piece = undefined;
        }
        while (piece === undefined) {
          let next: Uint8Array | undefined;
          try {
            next = await nextPiece();
          } catch (error) {
            finish();
            throw error;
          }
          if (next === undefined) {
            controller.close();
            return finish();
          }
          if (next.byteLength > 0) {
            piece = next;
            offset = 0;
          }
        }
        const end = Math.min(piece.byteLength, offset + SLICE_BYTES);
        controller.enqueue(offset === 0 && end === piece.byteLength ? piece : piece.subarray(offset, end));
        offset = end;
      },
      cancel: (reason) => {
        finish();
        return cancel?.(reason);
      },
    },
    // Nothing read ahead: a pull then means the chunk before it has been taken.
    { highWaterMark: 0 },
  );
}
