import { DEFAULT_DECODE_BUDGET, DEFAULT_MAX_DEPTH, MAX_FRAME_BYTES_LIMIT, type DecodeBudget } from './constants.js';

/**
 * What a receiver accepts from its peer, the same three limits on every transport and wire (each transport's
 * options extend this). Each is checked before the costly work: the size before a byte is buffered past it,
 * depth and budget while the payload is checked, before anything is built.
 */
export interface ReceiveLimits {
  /**
   * Largest message accepted, in bytes: a stdio frame's payload or JSON line, an HTTP request body (one
   * message or a batch), a reply body, one event of a reply stream. Default 64 MiB; 4 MiB for the HTTP
   * server's request bodies (DEFAULT_MAX_REQUEST_BODY_BYTES).
   */
  maxMessageBytes?: number;
  /** Deepest nesting of arrays and maps accepted in a received MessagePack message. Default 128. */
  maxDepth?: number;
  /**
   * The decode budget for received MessagePack messages (SPEC.md 4.1.9): arrays, maps and bins, and distinct
   * short keys, per payload byte. Default DEFAULT_DECODE_BUDGET (65,536 plus one per 8 bytes; 8,192 plus one
   * per 128 for keys).
   */
  decodeBudget?: Partial<DecodeBudget>;
}

/** The limits with every default filled in and every value checked. */
export interface ResolvedReceiveLimits {
  readonly maxMessageBytes: number;
  readonly maxDepth: number;
  readonly decodeBudget: DecodeBudget;
}

/** Largest message a receiver accepts unless told otherwise: 64 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** Largest request body the HTTP server accepts unless told otherwise: 4 MiB, as the SDK's server. */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 4 * 1024 * 1024;
/** @deprecated The old name of DEFAULT_MAX_MESSAGE_BYTES. */
export const DEFAULT_MAX_FRAME_BYTES = DEFAULT_MAX_MESSAGE_BYTES;

/**
 * The old names of `maxMessageBytes`, still read (the new name wins when both are given): the HTTP server's
 * `maxRequestBodySize`, the HTTP client's and FrameReader's `maxFrameBytes`, LineReader's `maxLineBytes`.
 */
export interface OldLimitNames {
  /** @deprecated The old name of `maxMessageBytes` (which wins when both are given). */
  maxRequestBodySize?: number;
  /** @deprecated The old name of `maxMessageBytes` (which wins when both are given). */
  maxFrameBytes?: number;
  /** @deprecated The old name of `maxMessageBytes` (which wins when both are given). */
  maxLineBytes?: number;
}

/**
 * Fills in and checks a transport's limits, once, when it is made: a limit that is not a positive whole
 * number (NaN, a negative, a fraction, a string) is a RangeError naming the option, rather than a check
 * silently switched off (`length > NaN` is never true).
 */
export function resolveReceiveLimits(options: ReceiveLimits & OldLimitNames = {}, defaultMaxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES): ResolvedReceiveLimits {
  const given = options.maxMessageBytes ?? options.maxRequestBodySize ?? options.maxFrameBytes ?? options.maxLineBytes;
  const nameOfGiven =
    options.maxMessageBytes !== undefined ? 'maxMessageBytes' : options.maxRequestBodySize !== undefined ? 'maxRequestBodySize' : options.maxFrameBytes !== undefined ? 'maxFrameBytes' : 'maxLineBytes';
  const maxMessageBytes = given === undefined ? defaultMaxMessageBytes : wholeNumber(nameOfGiven, given, 1, MAX_FRAME_BYTES_LIMIT);
  const maxDepth = options.maxDepth === undefined ? DEFAULT_MAX_DEPTH : wholeNumber('maxDepth', options.maxDepth, 1);
  const budget = options.decodeBudget ?? {};
  const decodeBudget: DecodeBudget = {
    base: budget.base === undefined ? DEFAULT_DECODE_BUDGET.base : count('decodeBudget.base', budget.base),
    bytesPerContainer: budget.bytesPerContainer === undefined ? DEFAULT_DECODE_BUDGET.bytesPerContainer : positive('decodeBudget.bytesPerContainer', budget.bytesPerContainer),
    keyBase: budget.keyBase === undefined ? DEFAULT_DECODE_BUDGET.keyBase : count('decodeBudget.keyBase', budget.keyBase),
    bytesPerShortKey: budget.bytesPerShortKey === undefined ? DEFAULT_DECODE_BUDGET.bytesPerShortKey : positive('decodeBudget.bytesPerShortKey', budget.bytesPerShortKey),
    wordBase: budget.wordBase === undefined ? DEFAULT_DECODE_BUDGET.wordBase : count('decodeBudget.wordBase', budget.wordBase),
    bytesPerWord: budget.bytesPerWord === undefined ? DEFAULT_DECODE_BUDGET.bytesPerWord : positive('decodeBudget.bytesPerWord', budget.bytesPerWord),
  };
  return { maxMessageBytes, maxDepth, decodeBudget };
}

function wholeNumber(name: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be a whole number from ${min} to ${max}, got ${describe(value)}`);
  }
  return value;
}

/** A count that every payload may hold: a whole number, or Infinity for no limit. */
function count(name: string, value: unknown): number {
  return value === Number.POSITIVE_INFINITY ? value : wholeNumber(name, value, 0);
}

/** A per-byte rate: any positive number (Infinity turns that part of the budget's growth off). */
function positive(name: string, value: unknown): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0) throw new RangeError(`${name} must be a positive number, got ${describe(value)}`);
  return value;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
