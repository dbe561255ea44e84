/**
 * Short ASCII strings (most map keys and enum-like values) built from a payload's bytes, the way each runtime
 * builds them fastest. The caller has checked that the bytes are ASCII, so every way gives the same string.
 */

/** A Buffer's latin1Slice (Node and Bun): one char per byte. */
export interface Latin1Slicing {
  latin1Slice(start: number, end: number): string;
}

// Two ways, and the runtime picks (runtime/, `shortAsciiFromWindow`, handed to the decoder as `asciiWindow`):
// cut the string from a latin1 window over the payload (Bun: latin1 gives one char per byte, so a window made
// at byte `start` holds the string at `at` at index `at - start`; one native call per window, then only
// substrings), or build it char by char (V8, where that costs less than a native call on a small message).
// The codec benchmark (`mcp-msgpack-bench --full --scenario codec`) measures both.

/**
 * Bytes per window. JavaScriptCore's substrings share their window, so a string kept from a payload keeps
 * its window alive: a small window bounds that to a few hundred bytes per kept string, and on Bun was no
 * slower than a 4 KB one (measured while choosing, on short-strings-50KB).
 */
export const WINDOW_BYTES = 256;

let window = '';
let windowStart = 0;
let windowEnd = 0;

/** Drops the window: the next payload starts its own (and holds none of the last one's text). */
export function forgetWindow(): void {
  window = '';
  windowStart = 0;
  windowEnd = 0;
}

/** The ASCII bytes at [at, at + length) of a payload of `payloadEnd` bytes, cut from the current window or a new one. */
export function asciiFromWindow(text: Latin1Slicing, payloadEnd: number, at: number, length: number): string {
  if (at < windowStart || at + length > windowEnd) {
    windowStart = at;
    windowEnd = Math.min(payloadEnd, at + WINDOW_BYTES);
    window = text.latin1Slice(windowStart, windowEnd);
  }
  return window.slice(at - windowStart, at - windowStart + length);
}

const fromCharCode = String.fromCharCode;

/**
 * The ASCII bytes at [at, at + length) as a string of its own: up to 8 chars in one call, longer ones joined
 * from such calls (fewer, larger calls cost less on many short strings: `mcp-msgpack-bench --full --scenario
 * codec --runtime bun` measures it; the README's "Decoding: one pass or two" has the figures).
 */
export function asciiFromCodes(b: Uint8Array, at: number, length: number): string {
  switch (length) {
    case 0:
      return '';
    case 1:
      return fromCharCode(b[at]!);
    case 2:
      return fromCharCode(b[at]!, b[at + 1]!);
    case 3:
      return fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!);
    case 4:
      return fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);
    case 5:
      return fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!, b[at + 4]!);
    case 6:
      return fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!, b[at + 4]!, b[at + 5]!);
    case 7:
      return fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!, b[at + 4]!, b[at + 5]!, b[at + 6]!);
    default:
      return fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!, b[at + 4]!, b[at + 5]!, b[at + 6]!, b[at + 7]!) + asciiFromCodes(b, at + 8, length - 8);
  }
}
