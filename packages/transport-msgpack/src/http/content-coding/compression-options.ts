import type { ContentCoding } from '../../runtime/content-codings.js';

/**
 * McpHttpHandler's `compression` option: HTTP content codings on replies and request bodies, both wires
 * (README, "Compression"; SPEC.md, "Content codings").
 */
export interface CompressionOptions {
  /**
   * When replies are compressed for a client that asks (Accept-Encoding): 'auto' (default) unless the
   * request arrived on a loopback address (where bytes cost nothing and CPU is what counts); true for every
   * client that asks; false never.
   */
  replies?: 'auto' | boolean;
  /** A one-body reply smaller than this goes uncoded (default 256 bytes). Streams are coded from their first event. */
  minBytes?: number;
  /**
   * Request bodies in a coding the runtime decodes are taken (decoded within the body cap), and replies that
   * are coded say so (`Accept-Encoding`, RFC 7694), so this package's client compresses its large requests.
   * Default true; false answers a coded body 415 with `Accept-Encoding: identity`, as with compression off.
   */
  requests?: boolean;
  /**
   * Replies under 4 KiB go in the MCP dictionary coding (`mcp-dict-v1`, SPEC 10.5) to a client that names it
   * in Accept-Encoding (this package's client; `*` does not cover it), where the runtime has it (Node, Bun).
   * Default true.
   */
  dictionary?: boolean;
  /**
   * Which a one-body reply of 8-64 KiB spends more on, where the client takes both zstd and br (this package's
   * client on Node >= 22.15 and Bun; a browser):
   * - 'bytes' (default): Brotli 5, about 7% fewer bytes than zstd 3 on such replies (0.916x gzip 6's bytes
   *   against 1.025x on the recorded filesystem session's) for about 5x zstd 3's coder CPU there. It is what
   *   brings that session to 0.6x of JSON + gzip 6's bytes on zstd runtimes (issue 41); at cloud prices (1 ms
   *   of CPU is worth about 120 bytes of egress) and on a 10 Mbit/s link (1 KB is 0.8 ms) the bytes pay.
   * - 'cpu': the codings in their order (zstd 3 there), for a server where CPU is dearer than bytes.
   * Replies under 8 KiB (the dictionary coding, zstd 3), from 64 KiB (zstd 9), streams, and clients that do
   * not take br are the same either way (README, "Compression").
   */
  favor?: CompressionFavor;
  /** The codings the server may reply in, best first (default: each the runtime has, zstd, br, gzip). */
  codings?: readonly ContentCoding[];
  /**
   * Most event streams coded at once (default 64); a stream opened past it goes uncoded. Each holds a
   * compression context for its whole life, 200-600 KiB resident (README, "Compression"): a thousand
   * long-lived GET streams would otherwise hold over half a GiB.
   */
  maxCodedStreams?: number;
}

/** The trade-off `compression.favor` chooses: fewer bytes, or less server CPU. */
export type CompressionFavor = 'bytes' | 'cpu';

/** The one-body replies `favor: 'bytes'` codes in Brotli where the client takes it: from 8 KiB, under 64 KiB. */
export const BYTES_FAVORED_REPLIES = { fromBytes: 8 * 1024, belowBytes: 64 * 1024 } as const;

/** The `compression` option as McpHttpHandler takes it: true/false turn replies on/off for every client, 'auto' the default. */
export type CompressionOption = boolean | 'auto' | CompressionOptions;

/** The option resolved, with the runtime's codings. */
export interface CompressionPolicy {
  readonly replies: 'auto' | boolean;
  readonly minBytes: number;
  /** The codings replies may use, best first; streams use those of them the runtime flushes. */
  readonly codings: readonly ContentCoding[];
  /** The codings for a one-body reply in BYTES_FAVORED_REPLIES' range: br first under 'bytes', else `codings`. */
  readonly favoredCodings: readonly ContentCoding[];
  readonly streamCodings: readonly ContentCoding[];
  /** The codings taken in request bodies (empty: 415 for any). */
  readonly requestCodings: readonly ContentCoding[];
  /** Small replies may go in the MCP dictionary coding (the option, and the runtime has it). */
  readonly dictionary: boolean;
  /** Event streams coded at once, and their cap (maxCodedStreams). */
  readonly streams: CodedStreamBudget;
}

/** How many event streams hold a compression context now, against the cap. */
export class CodedStreamBudget {
  private open = 0;

  constructor(readonly max: number) {}

  /** One more coded stream, if the cap allows: then `release` must be called once when it ends. */
  take(): boolean {
    if (this.open >= this.max) return false;
    this.open++;
    return true;
  }

  release(): void {
    this.open--;
  }

  get size(): number {
    return this.open;
  }
}

export const DEFAULT_MAX_CODED_STREAMS = 64;

/**
 * Replies from 256 bytes are coded: on the recorded filesystem session, the replies of 256 B to 1 KiB (a
 * directory listing, a file's info) shrink to 0.34-0.5x with zstd 3, 150-420 bytes each, for 8-15 µs of
 * coder time (Bun); under 256 bytes the saving is about the 24 bytes `Content-Encoding` costs. A reply that
 * saves less than an eighth still goes uncoded (bin-heavy.ts, shrankEnough).
 */
export const DEFAULT_COMPRESSION_MIN_BYTES = 256;

/** Request bodies from 1 KiB are coded (this package's client; requests are mostly small and go uncoded). */
export const REQUEST_COMPRESSION_MIN_BYTES = 1024;

/** The runtime's codings, as far as the handler's option goes. */
export function resolveCompression(
  option: CompressionOption | undefined,
  runtime: { readonly encodes: readonly ContentCoding[]; readonly encodesStreams: readonly ContentCoding[]; readonly decodes: readonly ContentCoding[]; readonly dictionary?: unknown },
): CompressionPolicy {
  const options: CompressionOptions = typeof option === 'object' ? option : { replies: option ?? 'auto', requests: option !== false };
  const minBytes = options.minBytes ?? DEFAULT_COMPRESSION_MIN_BYTES;
  if (!(minBytes >= 0)) throw new TypeError(`compression.minBytes must be a number of bytes, got ${String(options.minBytes)}`);
  const maxStreams = options.maxCodedStreams ?? DEFAULT_MAX_CODED_STREAMS;
  if (!(maxStreams >= 0)) throw new TypeError(`compression.maxCodedStreams must be a count, got ${String(options.maxCodedStreams)}`);
  const favor = options.favor ?? 'bytes';
  if (favor !== 'bytes' && favor !== 'cpu') throw new TypeError(`compression.favor must be 'bytes' or 'cpu', got ${String(options.favor)}`);
  const wanted = options.codings ?? runtime.encodes;
  const codings = wanted.filter((coding) => runtime.encodes.includes(coding));
  const brFirst = codings.includes('br') ? ['br' as const, ...codings.filter((coding) => coding !== 'br')] : codings;
  return {
    replies: options.replies ?? 'auto',
    minBytes,
    codings,
    favoredCodings: favor === 'bytes' ? brFirst : codings,
    streamCodings: codings.filter((coding) => runtime.encodesStreams.includes(coding)),
    requestCodings: options.requests === false ? [] : runtime.decodes,
    dictionary: options.dictionary !== false && runtime.dictionary !== undefined,
    streams: new CodedStreamBudget(maxStreams),
  };
}
