import { runtime } from '../../../runtime/current.js';
import { Buffer } from '../../../runtime/buffer.js';

// Responses whose body is already in memory (every reply but the streams). The Fetch spec makes
// `new Response(bytes)` copy its body, and reading it back with arrayBuffer() copies again: for a 5 MiB
// media result that is two copies and two extra 5 MiB buffers per call. Here the body is a stream over the
// same bytes, and the bytes are remembered so the server adapters (node-adapter.ts, bun-adapter.ts) write
// them directly. A body comes as pieces (see CanonicalEncoder.encodePieces): large native bytes are pieces of
// their own, never copied.

/** A body in memory: pieces of bytes, or JSON text (which node:http writes as it is, with no Buffer of its own). */
export type InMemoryBody = readonly Uint8Array[] | string;

const bodyOfResponse = new WeakMap<Response, InMemoryBody>();
/** Responses whose bytes the runtime's Response already holds (a copy of its own): see bytesResponse. */
const copiedIn = new WeakSet<Response>();

/**
 * Below this many bytes, where the runtime's Response is what goes out (no adapter writes the pieces), a
 * reply is copied into it whole: the Fetch spec copies a byte body when the Response is made, which for a
 * few KB costs less than a stream's machinery (on Bun, making the stream, cancelling it and a second
 * Response in the Bun adapter; packages/bench/measure/README.md). The Bun adapter's own threshold.
 */
export const WHOLE_REPLY_BYTES = 64 * 1024;

export function bytesResponse(pieces: readonly Uint8Array[], status: number, headers: Record<string, string>): Response {
  let length = 0;
  for (const piece of pieces) length += piece.byteLength;
  if (!runtime.adapterWritesReplyText && length < WHOLE_REPLY_BYTES) {
    const response = new Response((pieces.length === 1 ? pieces[0]! : new Blob([...pieces] as BlobPart[])) as BodyInit, { status, headers });
    copiedIn.add(response);
    return remember(response, pieces);
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) if (piece.byteLength > 0) controller.enqueue(piece);
      controller.close();
    },
  });
  return remember(new Response(body, { status, headers: { ...headers, 'Content-Length': String(length) } }), pieces);
}

/**
 * A JSON reply. On Node the text stays a string for the node adapter, which writes a small one as it is and
 * encodes a large one into a reused buffer (pooled-text.ts); a Buffer.from(text) here would be one more
 * fresh allocation per reply for V8 to account and collect (measured: with it a 1 MB JSON reply cost more
 * server CPU than the SDK's own server). The UTF-8 bytes are made only if something other than the node
 * adapter reads the body. Content-Length is the text's UTF-8 length, which the node adapter relies on.
 */
export function textResponse(text: string, status: number, headers: Record<string, string>): Response {
  if (!runtime.adapterWritesReplyText) return remember(new Response(text, { status, headers }), text);
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        controller.enqueue(Buffer.from(text, 'utf8'));
        controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  return remember(new Response(body, { status, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(text, 'utf8')) } }), text);
}

function remember(response: Response, body: InMemoryBody): Response {
  bodyOfResponse.set(response, body);
  return response;
}

/**
 * The in-memory body of a response made by bytesResponse or textResponse (or passed on with carryBytes): for
 * the adapters, and for the handler, which takes such a reply as complete once made (on every runtime).
 */
export function inMemoryBody(response: Response): InMemoryBody | undefined {
  return bodyOfResponse.get(response);
}

/** Whether the response holds a copy of its in-memory body (bytesResponse): its pieces may go back at once. */
export function holdsCopy(response: Response): boolean {
  return copiedIn.has(response);
}

/** Marks `wrapper` as having the same in-memory body as `original` (for responses that wrap another). */
export function carryBytes(original: Response, wrapper: Response): Response {
  const body = bodyOfResponse.get(original);
  if (body !== undefined) bodyOfResponse.set(wrapper, body);
  return wrapper;
}
