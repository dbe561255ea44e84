import { giveBackAll } from '../../buffers/lent-bytes.js';
import { Buffer } from '../../runtime/buffer.js';
import type { ContentCoding } from '../../runtime/content-codings.js';
import { runtime } from '../../runtime/current.js';
import { joinPieces } from '../../wire/pieces.js';
import { negotiateCoding } from '../content-coding/accept-encoding.js';
import { mostlyNativeBytes, shrankEnough } from '../content-coding/bin-heavy.js';
import { codedEventStream } from '../content-coding/coded-stream.js';
import type { CompressionPolicy } from '../content-coding/compression-options.js';
import { MSGPACK_STREAM_MEDIA_TYPE, SSE_MEDIA_TYPE, mediaTypeEssence } from '../media.js';
import { isLoopbackAddress } from './exchange/host-check.js';
import { dropBody, untouchedHeaders } from './exchange/lazy-response.js';
import { inMemoryBody, respond } from './exchange/responses.js';

// The handler's one hook for content codings (README, "Compression"; SPEC.md, "Content codings"): every
// Response it makes passes here once. A reply in memory over the threshold is coded whole (the adapters then
// write the coded bytes as any reply); a stream of events goes through one compression context, flushed per
// event. Everything else (refusals, small replies, media, a client that does not ask) passes as it is.

/** The reply to send for `response`, coded as the request's Accept-Encoding and the policy allow. */
export function codedReply(response: Response, acceptEncoding: string | null, localAddress: string | undefined, policy: CompressionPolicy): Response | Promise<Response> {
  if (policy.replies === false || acceptEncoding === null || (policy.replies === 'auto' && isLoopbackAddress(localAddress))) return response;
  if (response.headers.get('content-encoding') !== null) return response;
  const body = inMemoryBody(response);
  if (body !== undefined) {
    const coding = negotiateCoding(acceptEncoding, policy.codings);
    return coding === undefined ? response : codedWhole(advertised(response, policy), body, coding, policy);
  }
  const type = mediaTypeEssence(response.headers.get('content-type'));
  if (response.body === null || (type !== SSE_MEDIA_TYPE && type !== MSGPACK_STREAM_MEDIA_TYPE)) return response;
  const coding = negotiateCoding(acceptEncoding, policy.streamCodings);
  // Past the cap on coded streams, a stream goes as it is (each coded one holds a context for its life).
  if (coding === undefined || !policy.streams.take()) return response;
  const headers = codedHeaders(response, coding, policy);
  return respond(
    response.status,
    codedEventStream(response.body, runtime.contentCodings.streamEncoder(coding), () => policy.streams.release()),
    headers,
  );
}

/** A one-body reply coded whole, or as it was when it is small, mostly media, or did not shrink. */
function codedWhole(response: Response, body: string | readonly Uint8Array[], coding: ContentCoding, policy: CompressionPolicy): Response | Promise<Response> {
  let plain: Uint8Array;
  if (typeof body === 'string') {
    if (body.length < policy.minBytes) return response;
    plain = Buffer.from(body, 'utf8');
  } else {
    let length = 0;
    for (const piece of body) length += piece.byteLength;
    if (length < policy.minBytes || mostlyNativeBytes(body, length)) return response;
    plain = body.length === 1 ? body[0]! : joinPieces(body, length).buffer;
  }
  const coded = runtime.contentCodings.encode(coding, plain);
  const finish = (bytes: Uint8Array): Response => {
    if (!shrankEnough(bytes.byteLength, plain.byteLength)) return response;
    const headers = codedHeaders(response, coding, policy);
    // The coder read the pieces: lent ones go back, and the original body is not read by anyone now.
    if (typeof body !== 'string') giveBackAll(body);
    dropBody(response);
    return respond(response.status, [bytes], headers);
  };
  return coded instanceof Uint8Array ? finish(coded) : coded.then(finish);
}

/**
 * A reply left uncoded still says which codings the server takes in request bodies (RFC 7694), so a client
 * that asked learns it from its first reply, coded or not.
 */
function advertised(response: Response, policy: CompressionPolicy): Response {
  if (policy.requestCodings.length === 0) return response;
  const value = policy.requestCodings.join(', ');
  const record = untouchedHeaders(response);
  if (record) record['Accept-Encoding'] = value;
  else response.headers.set('Accept-Encoding', value);
  return response;
}

/** The reply's headers with its coding: no length (the coded body has its own), and the codings taken in requests (RFC 7694). */
function codedHeaders(response: Response, coding: ContentCoding, policy: CompressionPolicy): Record<string, string> {
  const headers: Record<string, string> = {};
  const record = untouchedHeaders(response);
  if (record) Object.assign(headers, record);
  else
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
  for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-length' || name.toLowerCase() === 'vary') delete headers[name];
  headers['Content-Encoding'] = coding;
  if (policy.requestCodings.length > 0) headers['Accept-Encoding'] = policy.requestCodings.join(', ');
  return headers;
}
