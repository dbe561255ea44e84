import { DecodedTooLargeError, type CodingStreamEncoder, type ContentCoding, type ContentCodings } from './content-codings.js';

// Content codings on web streams (Deno, Workers, browsers): CompressionStream and DecompressionStream have
// gzip everywhere, and no flush, so event streams go uncoded here (an event would wait for later ones).

async function encode(_coding: ContentCoding, bytes: Uint8Array): Promise<Uint8Array> {
  const coded = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(coded).arrayBuffer());
}

/** Decodes chunk by chunk, stopping (the stream cancelled) as soon as the output passes `maxBytes`. */
async function decode(_coding: ContentCoding, bytes: Uint8Array, maxBytes: number): Promise<Uint8Array> {
  const reader = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream('gzip')).getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new DecodedTooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  const whole = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return whole;
}

function noStreams(coding: ContentCoding): CodingStreamEncoder {
  throw new Error(`no stream encoder for ${coding} on this runtime`);
}

/**
 * gzip on web streams, for request bodies only; the runtime's fetch advertises and decodes replies by itself.
 * Replies are not coded here: a fetch runtime's server codes a Response by its Content-Encoding header itself
 * (workerd does, unless told the body is coded already), so a body coded here went out coded twice and a
 * stock client read gzip bytes as JSON (test:edge, Workers). The platform's own compression is the one to use.
 */
export function webContentCodings(): ContentCodings {
  const hasStreams = typeof CompressionStream === 'function' && typeof DecompressionStream === 'function';
  const gzip: readonly ContentCoding[] = hasStreams ? ['gzip'] : [];
  return { encodes: [], encodesStreams: [], decodes: gzip, fetchDecodes: [], encode, streamEncoder: noStreams, decode };
}
