import type { ContentCoding } from '../../runtime/content-codings.js';
import { runtime } from '../../runtime/current.js';
import { Buffer } from '../../runtime/buffer.js';
import { acceptedCodings, contentEncodingsOf, negotiateCoding } from '../content-coding/accept-encoding.js';
import { REQUEST_COMPRESSION_MIN_BYTES } from '../content-coding/compression-options.js';
import { StreamableHTTPError } from '../errors.js';
import { DecodedTooLargeError } from '../../runtime/content-codings.js';
import { FramingError } from '../../wire/errors.js';
import { MCP_DICTIONARY_CODING, mcpDictionaryV1 } from '../content-coding/mcp-dictionary.js';
import { MSGPACK_STREAM_MEDIA_TYPE, SSE_MEDIA_TYPE, mediaTypeEssence } from '../media.js';
import { readCappedBody } from './capped-body.js';

/** Whether a reply's content type is a one-body one (not SSE or the frame stream). */
function isOneBody(contentType: string | null): boolean {
  const type = mediaTypeEssence(contentType);
  return type !== SSE_MEDIA_TYPE && type !== MSGPACK_STREAM_MEDIA_TYPE;
}

/**
 * The client's side of content codings (README, "Compression"; SPEC.md, "Content codings"). Replies: it
 * offers what its fetch decodes (the Fetch standard has fetch decode a coded body by itself; the reply
 * readers count the decoded bytes against `maxMessageBytes`, so a small coded body never passes the cap),
 * and refuses a reply in a coding it did not offer. Requests: a body of 1 KiB or more goes coded once
 * the server has said which codings it takes (its Accept-Encoding, RFC 7694), in the best of them this
 * runtime writes; a 415 to a coded body turns request coding off and the body goes again uncoded.
 */
export class ClientCoding {
  /** The Accept-Encoding the client sends, or undefined where the runtime's fetch sets its own (a browser). */
  readonly acceptEncoding: string | undefined;
  private readonly offered: ReadonlySet<string>;
  /** The coding for large request bodies, once the server has shown it takes one. */
  private requestCoding: ContentCoding | undefined;
  private requestsRefused = false;

  /** `enabled`: the `compression` option; `callerFetch`: the options gave a fetch of their own. */
  constructor(enabled: boolean, callerFetch: boolean) {
    const decodes = runtime.contentCodings.fetchDecodes;
    // A caller's fetch may be the runtime's own, whose decoders can be older than the default's (Node 22's
    // bundled undici has no zstd): every fetch decodes br and gzip.
    const offered = !enabled ? [] : callerFetch ? decodes.filter((coding) => coding !== 'zstd') : decodes;
    this.offered = new Set(offered);
    // The dictionary coding (SPEC 10.5) is decoded here, not by the fetch (which passes a coding it does not
    // know through as it is), so it is offered wherever the runtime has the coder and the client sets the header.
    this.dictionary = offered.length > 0 && runtime.contentCodings.dictionary !== undefined;
    const tokens = this.dictionary ? [MCP_DICTIONARY_CODING, ...offered] : offered;
    this.acceptEncoding = !enabled ? 'identity' : tokens.length > 0 ? tokens.join(', ') : undefined;
  }

  /** Whether the client offers the MCP dictionary coding (and so decodes it). */
  private readonly dictionary: boolean;

  /** Sets the request's Accept-Encoding (left to the fetch where it sets its own). */
  advertise(headers: Headers): void {
    if (this.acceptEncoding !== undefined) headers.set('accept-encoding', this.acceptEncoding);
  }

  /**
   * A reply in a coding the client did not offer is refused (its body cancelled): the fetch may not have
   * decoded it, and a peer that ignores the offer is not read on trust. No check where the fetch made the offer.
   */
  async check(response: Response, stream = false): Promise<void> {
    if (this.acceptEncoding === undefined) return;
    // The dictionary coding is for one-body replies only: on a stream it is a coding the client did not offer.
    const offered = (coding: string) => this.offered.has(coding) || (coding === MCP_DICTIONARY_CODING && this.dictionary && !stream);
    const unoffered = contentEncodingsOf(response.headers.get('content-encoding')).filter((coding) => !offered(coding));
    if (unoffered.length === 0) return;
    await response.body?.cancel().catch(() => {});
    throw new StreamableHTTPError(-1, `Unexpected content coding: a reply in ${unoffered.join(', ')}, which the client did not offer (Accept-Encoding: ${this.acceptEncoding})`);
  }

  /**
   * A reply in the dictionary coding, decoded (SPEC 10.5): its coded bytes read up to `maxBytes`, decoded with
   * the output capped at `maxBytes` (a bomb is refused as a reply over the cap, as an uncoded one would be),
   * given back as an uncoded Response. Any other reply as it is. On a stream content type it is refused.
   */
  async decodeDictionary(response: Response, maxBytes: number): Promise<Response> {
    if (!this.dictionary || contentEncodingsOf(response.headers.get('content-encoding'))[0] !== MCP_DICTIONARY_CODING) return response;
    if (!isOneBody(response.headers.get('content-type'))) {
      await response.body?.cancel().catch(() => {});
      throw new StreamableHTTPError(-1, `Unexpected content coding: ${MCP_DICTIONARY_CODING} on a stream (it is for one-body replies only)`);
    }
    const coded = await readCappedBody(response, maxBytes);
    let plain: Uint8Array;
    try {
      plain = runtime.contentCodings.dictionary!.decode(coded, mcpDictionaryV1(), maxBytes);
    } catch (error) {
      if (error instanceof DecodedTooLargeError)
        throw new FramingError('message-too-large', `reply body passed ${maxBytes} bytes once decoded (${MCP_DICTIONARY_CODING}), over the client's maxMessageBytes cap of ${maxBytes} bytes`);
      throw new StreamableHTTPError(-1, `A reply in ${MCP_DICTIONARY_CODING} did not decode: ${(error as Error).message}`);
    }
    const headers = new Headers(response.headers);
    headers.delete('content-encoding');
    headers.delete('content-length');
    return new Response(plain as BodyInit, { status: response.status, statusText: response.statusText, headers });
  }

  /** Learns the codings the server takes in request bodies from a response's Accept-Encoding (RFC 7694). */
  learn(response: Response): void {
    if (this.requestsRefused || this.offered.size === 0) return;
    const header = response.headers.get('accept-encoding');
    if (header === null) return;
    this.requestCoding = acceptedCodings(header).size > 0 ? negotiateCoding(header, runtime.contentCodings.encodes) : undefined;
  }

  /** The body coded for the server, with its coding, or undefined to send it as it is (small, or no coding learned). */
  code(body: string | Uint8Array): { body: Uint8Array; coding: ContentCoding } | Promise<{ body: Uint8Array; coding: ContentCoding }> | undefined {
    const coding = this.requestCoding;
    if (coding === undefined) return undefined;
    const size = typeof body === 'string' ? body.length : body.byteLength;
    if (size < REQUEST_COMPRESSION_MIN_BYTES) return undefined;
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const coded = runtime.contentCodings.encode(coding, bytes);
    return coded instanceof Uint8Array ? { body: coded, coding } : coded.then((done) => ({ body: done, coding }));
  }

  /** A 415 to a coded body: the server (or a proxy) does not take it after all. True: send it again uncoded. */
  refusedCoded(response: Response, coded: boolean): boolean {
    if (!coded || response.status !== 415) return false;
    this.requestCoding = undefined;
    this.requestsRefused = true;
    return true;
  }
}
