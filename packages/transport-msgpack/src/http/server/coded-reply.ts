import { giveBackAll } from '../../buffers/lent-bytes.js';
import { utf8ForReader } from '../../buffers/pooled-text.js';
import type { ContentCoding } from '../../runtime/content-codings.js';
import { runtime } from '../../runtime/current.js';
import { joinPieces } from '../../wire/pieces.js';
import { acceptedCodings, negotiateCoding } from '../content-coding/accept-encoding.js';
import { mostlyNativeBytes, shrankEnough } from '../content-coding/bin-heavy.js';
import { codedEventStream, encoderOnFirstUse } from '../content-coding/coded-stream.js';
import { BYTES_FAVORED_REPLIES, type CompressionPolicy } from '../content-coding/compression-options.js';
import { DICTIONARY_MAX_BYTES, DICTIONARY_MIN_BYTES, MCP_DICTIONARY_CODING, mcpDictionaryV1 } from '../content-coding/mcp-dictionary.js';
import { MSGPACK_STREAM_MEDIA_TYPE, SSE_MEDIA_TYPE, mediaTypeEssence } from '../media.js';
import { isLoopbackAddress } from './exchange/host-check.js';
import { dropBody, hasContentEncoding, untouchedHeaders } from './exchange/lazy-response.js';
import { inMemoryBody, respond } from './exchange/responses.js';

// The handler's one hook for content codings (README, "Compression"; SPEC.md, "Content codings"): every
// Response it makes passes here once. A reply in memory over the threshold is coded whole (the adapters then
// write the coded bytes as any reply); a stream of events goes through one compression context, flushed per
// event. Everything else (refusals, small replies, media, a client that does not ask) passes as it is.

/** What codedReply needs of the request. */
export interface CodingRequest {
  readonly acceptEncoding: string | null;
  /**
   * The request carried no `Mcp-Session-Id` (it opens a session, or the server is stateless): only its
   * reply says which codings the server takes in request bodies (SPEC 10.2 rule 5). Within a session the
   * client has learnt it from the opening reply; saying it again cost 33 bytes on every reply (on the
   * recorded filesystem session, about 1% of what our client received).
   */
  readonly outsideSession: boolean;
  readonly localAddress: string | undefined;
}

/** The reply to send for `response`, coded as the request's Accept-Encoding and the policy allow. */
export function codedReply(response: Response, request: CodingRequest, policy: CompressionPolicy): Response | Promise<Response> {
  const { acceptEncoding } = request;
  if (policy.replies === false || acceptEncoding === null || (policy.replies === 'auto' && isLoopbackAddress(request.localAddress))) return response;
  if (hasContentEncoding(response)) return response;
  const advertise = request.outsideSession ? policy.requestCodings : [];
  const body = inMemoryBody(response);
  if (body !== undefined) {
    const coding = negotiateCoding(acceptEncoding, policy.codings);
    const dictionary = policy.dictionary && (acceptedCodings(acceptEncoding).get(MCP_DICTIONARY_CODING) ?? 0) > 0;
    return coding === undefined && !dictionary ? response : codedWhole(advertised(response, advertise), body, { acceptEncoding, coding, dictionary }, policy, advertise);
  }
  const type = mediaTypeEssence(response.headers.get('content-type'));
  if (response.body === null || (type !== SSE_MEDIA_TYPE && type !== MSGPACK_STREAM_MEDIA_TYPE)) return response;
  const coding = negotiateCoding(acceptEncoding, policy.streamCodings);
  // Past the cap on coded streams, a stream goes as it is (each coded one holds a context for its life).
  if (coding === undefined || !policy.streams.take()) return response;
  const headers = codedHeaders(response, coding, advertise);
  return respond(
    response.status,
    codedEventStream(
      response.body,
      encoderOnFirstUse(() => runtime.contentCodings.streamEncoder(coding)),
      () => policy.streams.release(),
    ),
    headers,
  );
}

/** The codings a reply may go in: the best standard one the client takes, and whether it takes the dictionary coding. */
interface ReplyCodings {
  readonly acceptEncoding: string;
  readonly coding: ContentCoding | undefined;
  readonly dictionary: boolean;
}

/**
 * The coding for a reply of `size` bytes (UTF-16 units for a JSON text, close enough for a threshold): the
 * dictionary coding from DICTIONARY_MIN_BYTES up to DICTIONARY_MAX_BYTES where the client takes it, else the
 * standard coding from `minBytes` (in BYTES_FAVORED_REPLIES' range, the best of the policy's `favoredCodings`:
 * br first under `favor: 'bytes'`, the client's q-values still deciding); undefined for none.
 */
function codingFor(size: number, codings: ReplyCodings, policy: CompressionPolicy): ContentCoding | typeof MCP_DICTIONARY_CODING | undefined {
  if (codings.dictionary && size >= DICTIONARY_MIN_BYTES && size < DICTIONARY_MAX_BYTES) return MCP_DICTIONARY_CODING;
  if (size < policy.minBytes || codings.coding === undefined) return undefined;
  const favored = size >= BYTES_FAVORED_REPLIES.fromBytes && size < BYTES_FAVORED_REPLIES.belowBytes;
  return favored ? negotiateCoding(codings.acceptEncoding, policy.favoredCodings) : codings.coding;
}

/** A one-body reply coded whole, or as it was when it is small, mostly media, or did not shrink. */
function codedWhole(response: Response, body: string | readonly Uint8Array[], codings: ReplyCodings, policy: CompressionPolicy, advertise: readonly ContentCoding[]): Response | Promise<Response> {
  let plain: Uint8Array;
  let coding: ContentCoding | typeof MCP_DICTIONARY_CODING | undefined;
  // A JSON reply's text is encoded once, here, for the coder (into a pooled buffer when it is large), and
  // given back once the coder has read it: the uncoded reply's bytes and length are never made.
  let coderDone = (): void => {};
  if (typeof body === 'string') {
    coding = codingFor(body.length, codings, policy);
    if (coding === undefined) return response;
    const text = utf8ForReader(body);
    plain = text.bytes;
    coderDone = text.giveBack;
  } else {
    let length = 0;
    for (const piece of body) length += piece.byteLength;
    coding = codingFor(length, codings, policy);
    if (coding === undefined || mostlyNativeBytes(body, length)) return response;
    plain = body.length === 1 ? body[0]! : joinPieces(body, length).buffer;
  }
  const coded = coding === MCP_DICTIONARY_CODING ? runtime.contentCodings.dictionary!.encode(plain, mcpDictionaryV1()) : runtime.contentCodings.encode(coding, plain);
  const finish = (bytes: Uint8Array): Response => {
    const plainLength = plain.byteLength;
    coderDone();
    if (!shrankEnough(bytes.byteLength, plainLength)) return response;
    const headers = codedHeaders(response, coding, advertise);
    // The coder read the pieces: lent ones go back, and the original body is not read by anyone now.
    if (typeof body !== 'string') giveBackAll(body);
    dropBody(response);
    return respond(response.status, [bytes], headers);
  };
  if (coded instanceof Uint8Array) return finish(coded);
  return coded.then(finish, (error: unknown) => {
    coderDone();
    throw error;
  });
}

/**
 * A reply left uncoded still says which codings the server takes in request bodies (RFC 7694), so a client
 * that asked learns it from the session's opening reply, coded or not. `advertise` is empty within a session.
 */
function advertised(response: Response, advertise: readonly ContentCoding[]): Response {
  if (advertise.length === 0) return response;
  const value = advertise.join(', ');
  const record = untouchedHeaders(response);
  if (record) record['Accept-Encoding'] = value;
  else response.headers.set('Accept-Encoding', value);
  return response;
}

/** Headers of the uncoded reply that its coded form sets anew (Vary is set by respond). */
const REPLACED_HEADERS = new Set(['content-length', 'vary', 'content-encoding', 'accept-encoding']);
const KEPT_ACCEPT_ENCODING = new Set(['content-length', 'vary', 'content-encoding']);

/**
 * The reply's headers with its coding: no length (the coded body has its own), and the codings taken in
 * requests (RFC 7694) when `advertise` names them. An Accept-Encoding the reply already had (a 415's) stays.
 */
function codedHeaders(response: Response, coding: string, advertise: readonly ContentCoding[]): Record<string, string> {
  const headers: Record<string, string> = {};
  const record = untouchedHeaders(response);
  if (record) Object.assign(headers, record);
  else
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
  // Names compared without case: a reply whose Headers were read has them lower-cased, and one set here
  // again under another case went out twice (Accept-Encoding, 33 bytes on every coded reply).
  const replaced = advertise.length > 0 ? REPLACED_HEADERS : KEPT_ACCEPT_ENCODING;
  for (const name of Object.keys(headers)) if (replaced.has(name.toLowerCase())) delete headers[name];
  headers['Content-Encoding'] = coding;
  if (advertise.length > 0) headers['Accept-Encoding'] = advertise.join(', ');
  return headers;
}
