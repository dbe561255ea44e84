import type { FetchLike } from '../mcp/types.js';
import type { ContentCodings } from './content-codings.js';

/** A fetch for the HTTP client, with what it holds open (a keep-alive pool) to release on close. */
export interface ClientFetch {
  fetch: FetchLike;
  close?: () => Promise<void>;
}

/**
 * Where MessagePack costs less CPU than JSON on a runtime, by message shape (Runtime.encodingBreakEven, read by
 * codec/encoding-policy.ts; the calibration, with the command that measured it, is in the package README, "Per-message encoding").
 */
export interface EncodingBreakEven {
  /** A string this long (UTF-16 units) or longer makes MessagePack cheaper, whatever else the message holds. */
  readonly longStringChars: number;
  /** Messages with fewer values than this are "small". */
  readonly smallValues: number;
  /** Small messages: MessagePack is cheaper. */
  readonly msgpackForSmall: boolean;
  /** Large messages made mostly of numbers (embeddings, series). */
  readonly msgpackForNumeric: boolean;
  /** Other large messages made mostly of values (few object keys per value, e.g. arrays of strings). */
  readonly msgpackForKeySparse: boolean;
  /**
   * Large messages made mostly of object members (a key for most values, e.g. records): MessagePack is
   * cheaper from this many values on (the walk's estimate, MessageShape.estimatedValues); Infinity: never.
   */
  readonly keyDenseMsgpackValues: number;
  /**
   * The most values the policy's walk reads of a message (default 512; at least `smallValues`, so that
   * "small" stays exact): where no rule needs the records estimate, a shorter walk decides the same for less.
   */
  readonly walkValues?: number;
}

/**
 * What this package needs to know of the JavaScript runtime it runs on, stated once per runtime (node.ts,
 * bun.ts) so the rest of the code asks about a behaviour, never about a runtime's name.
 */
export interface Runtime {
  readonly name: 'node' | 'bun' | 'web';
  /** The HTTP client's fetch when the caller gives none. */
  defaultFetch(): ClientFetch;
  /**
   * The server sends a streamed Response's status and headers only with its first chunk, so a stream with
   * nothing to say yet must say something (a keep-alive) for the client to learn its status and session.
   */
  readonly streamHeadersWaitForFirstChunk: boolean;
  /**
   * The server's writers report when the kernel has taken a lent buffer's bytes (buffers/lent-bytes.ts), so
   * buffers lent from a pool come back to it. Where they do not, pooling would only leak.
   */
  readonly writersGiveBackLentBytes: boolean;
  /**
   * A reply's Response carries its body in memory for the server adapter to write as it is (node:http takes
   * strings and pieces); otherwise the Response is what goes out, and the runtime's own Response(text), or
   * Response(bytes) for a small MessagePack reply, is the cheapest body.
   */
  readonly adapterWritesReplyText: boolean;
  /**
   * A long JSON line checked against a stdio peer's line limit (connection/json-line-limit.ts) is measured by
   * encoding it to UTF-8 and writing those bytes, rather than by Buffer.byteLength and writing the string:
   * where writing a string encodes it anyway, so the count costs nothing more (Node: byteLength takes 4.6 ms
   * for 7 MB, the encoding is paid by the write either way); Bun's byteLength is cheap (1.5 ms) and its
   * Buffer.from dear (15 ms).
   */
  readonly measuresLinesByEncoding: boolean;
  /**
   * How the msgpack decoder checks and builds a payload (wire/decoder.ts, DecodePath): both paths refuse and
   * build the same, and each runtime takes the one measured faster on it (`mcp-msgpack-bench --full
   * --scenario codec`, README "Decoding: one pass or two").
   */
  readonly decodePath: 'guard-then-msgpackr' | 'single-pass';
  /**
   * The single-pass decoder cuts short ASCII strings from a latin1 window over the payload rather than
   * building them char by char (wire/short-ascii.ts). Needs Buffer's latin1Slice.
   */
  readonly shortAsciiFromWindow: boolean;
  /** Where MessagePack costs less CPU than JSON, by message shape: the 'cheapest-cpu' encoding policy's thresholds. */
  readonly encodingBreakEven: EncodingBreakEven;
  /**
   * The HTTP content codings this runtime compresses and decodes (zstd where its zlib has it: Node >= 22.15
   * and Bun, not Node 20), and which of them its default fetch decodes by itself (http/content-coding/).
   */
  readonly contentCodings: ContentCodings;
  /** Whether a failed dynamic import means the package is not installed (rather than broken). */
  isModuleNotFound(error: unknown): boolean;
  /**
   * A full garbage collection of the engine, where the runtime offers one to the program: Bun.gc(true) and
   * Bun.shrink() on Bun; on V8 runtimes the `gc` global, which exists only when the host started the engine with
   * --expose-gc. Undefined where there is none. Used only when a server asks for it (McpHttpHandler's
   * idleRelease.collectGarbage): a collection is process-wide.
   */
  fullGarbageCollection(): (() => void) | undefined;
}

/** The `gc` global of a V8 engine started with --expose-gc (Node, Deno with --v8-flags), or undefined. */
export function exposedGc(): (() => void) | undefined {
  const gc = (globalThis as { gc?: unknown }).gc;
  return typeof gc === 'function' ? () => (gc as () => void)() : undefined;
}

/** Node's error codes for a package that is not there, which Bun sets too for most imports. */
export function hasModuleNotFoundCode(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}
