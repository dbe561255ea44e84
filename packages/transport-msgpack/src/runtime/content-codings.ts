/**
 * HTTP content codings (RFC 9110 8.4.1) this package writes and reads, best first: zstd (RFC 8878), Brotli
 * (RFC 7932), gzip (RFC 1952). `deflate` is read (the stock clients offer it) but never chosen: gzip is
 * offered beside it by every client that offers it, and its zlib-or-raw ambiguity is not worth a branch.
 */
export type ContentCoding = 'zstd' | 'br' | 'gzip';

/** Every coding this package knows, in the order a server prefers them. */
export const CONTENT_CODINGS: readonly ContentCoding[] = ['zstd', 'br', 'gzip'];

/**
 * One compression context for one stream of events: what is written goes out at the next flush, each flush
 * ending on a boundary the decoder can decode up to (a sync flush), so no event waits for the next, and later
 * events compress against earlier ones.
 */
export interface CodingStreamEncoder {
  /** Adds bytes to the context (the encoder may keep them until the next flush; it reads them until then). */
  write(bytes: Uint8Array): void;
  /** Everything written so far, coded: resolves once the encoder has taken all of it. */
  flush(): Promise<Uint8Array[]>;
  /** The coding's end (its trailer): the stream is over. */
  end(): Promise<Uint8Array[]>;
  /** Drops the context unfinished (the client went away). */
  destroy(): void;
}

/** A decoded body would pass its cap: refused while inflating, with nothing past the cap kept. */
export class DecodedTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`decoded body passes the cap of ${maxBytes} bytes`);
    this.name = 'DecodedTooLargeError';
  }
}

/** What a runtime can do with content codings (Runtime.contentCodings). */
export interface ContentCodings {
  /** Codings this runtime compresses a whole body in, best first. */
  readonly encodes: readonly ContentCoding[];
  /** Codings whose event streams it compresses with a flush per event (none where it has no flush). */
  readonly encodesStreams: readonly ContentCoding[];
  /** Codings it decodes, as a whole body with a cap (a server's request bodies). */
  readonly decodes: readonly ContentCoding[];
  /**
   * Codings the runtime's default fetch decodes by itself, as the Fetch standard has it: what the client
   * advertises. Empty where the runtime sets Accept-Encoding itself (a browser: the header is forbidden).
   */
  readonly fetchDecodes: readonly ContentCoding[];
  /** Compresses a whole body at the coding's default level (README, "Compression"). */
  encode(coding: ContentCoding, bytes: Uint8Array): Uint8Array | Promise<Uint8Array>;
  /** A stream's context (only for a coding in `encodesStreams`). */
  streamEncoder(coding: ContentCoding): CodingStreamEncoder;
  /**
   * Decodes a whole body: throws DecodedTooLargeError as soon as the output would pass `maxBytes` (checked
   * while inflating: nothing past it is allocated), and the coding's own error on corrupt or truncated input.
   */
  decode(coding: ContentCoding, bytes: Uint8Array, maxBytes: number): Uint8Array | Promise<Uint8Array>;
  /**
   * Raw deflate (RFC 1951) with a preset dictionary, for the MCP dictionary coding (SPEC 10.5): absent where
   * the runtime has no dictionary-taking deflate (fetch runtimes: CompressionStream takes none).
   */
  readonly dictionary?: PresetDictionaryCoder;
}

/** Raw deflate with a preset dictionary, whole bodies only. */
export interface PresetDictionaryCoder {
  encode(bytes: Uint8Array, dictionary: Uint8Array): Uint8Array;
  /** As ContentCodings.decode: DecodedTooLargeError as soon as the output would pass `maxBytes`. */
  decode(bytes: Uint8Array, dictionary: Uint8Array, maxBytes: number): Uint8Array;
}
