import type { ContentCoding } from '../../runtime/content-codings.js';
import { runtime } from '../../runtime/current.js';
import { Buffer } from '../../runtime/buffer.js';
import { acceptedCodings, contentEncodingsOf, negotiateCoding } from '../content-coding/accept-encoding.js';
import { REQUEST_COMPRESSION_MIN_BYTES } from '../content-coding/compression-options.js';
import { StreamableHTTPError } from '../errors.js';

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
    this.acceptEncoding = !enabled ? 'identity' : offered.length > 0 ? offered.join(', ') : undefined;
  }

  /** Sets the request's Accept-Encoding (left to the fetch where it sets its own). */
  advertise(headers: Headers): void {
    if (this.acceptEncoding !== undefined) headers.set('accept-encoding', this.acceptEncoding);
  }

  /**
   * A reply in a coding the client did not offer is refused (its body cancelled): the fetch may not have
   * decoded it, and a peer that ignores the offer is not read on trust. No check where the fetch made the offer.
   */
  async check(response: Response): Promise<void> {
    if (this.acceptEncoding === undefined) return;
    const unoffered = contentEncodingsOf(response.headers.get('content-encoding')).filter((coding) => !this.offered.has(coding));
    if (unoffered.length === 0) return;
    await response.body?.cancel().catch(() => {});
    throw new StreamableHTTPError(-1, `Unexpected content coding: a reply in ${unoffered.join(', ')}, which the client did not offer (Accept-Encoding: ${this.acceptEncoding})`);
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
