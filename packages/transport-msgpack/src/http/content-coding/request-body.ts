import { DecodedTooLargeError, type ContentCoding } from '../../runtime/content-codings.js';
import { runtime } from '../../runtime/current.js';

/** A request body decoded, or why not: 413 past the cap, 400 for a coding that does not decode. */
export type DecodedBody = { readonly ok: true; readonly bytes: Uint8Array } | { readonly ok: false; readonly status: 400 | 413; readonly message: string };

/**
 * Decodes a coded request body within `maxBytes`, the same cap as a plain body: the decoder stops as soon
 * as its output would pass it (a ratio bomb costs at most the cap), and a corrupt or truncated coding is a
 * 400 that names the coding.
 */
export async function decodeRequestBody(bytes: Uint8Array, coding: ContentCoding, maxBytes: number): Promise<DecodedBody> {
  try {
    return { ok: true, bytes: await runtime.contentCodings.decode(coding, bytes, maxBytes) };
  } catch (error) {
    if (error instanceof DecodedTooLargeError) return { ok: false, status: 413, message: `Payload Too Large: Request body must not exceed ${maxBytes} bytes once decoded (Content-Encoding ${coding})` };
    return { ok: false, status: 400, message: `Bad Request: the ${coding} body does not decode (${(error as Error)?.message ?? String(error)})` };
  }
}
