import { CONTENT_CODINGS, type ContentCoding } from '../../runtime/content-codings.js';

// Accept-Encoding and Content-Encoding as RFC 9110 (12.5.3, 8.4) has them: codings with optional q-values,
// case-insensitive; `*` stands for any coding not named; q=0 refuses.

const NONE: ReadonlyMap<string, number> = new Map();

/**
 * The last header parsed and its codings: a client sends the same Accept-Encoding on every request, and a coded
 * reply asks twice (its coding, and whether the dictionary coding is taken). One entry, so a client that
 * varies it costs a parse, never memory.
 */
let lastHeader: string | undefined;
let lastAccepted: ReadonlyMap<string, number> = NONE;

/** The q-value of each coding an Accept-Encoding names (lower case; `*` too); empty for none or no header. */
export function acceptedCodings(header: string | null): ReadonlyMap<string, number> {
  if (!header) return NONE;
  if (header !== lastHeader) {
    lastAccepted = parseAcceptEncoding(header);
    lastHeader = header;
  }
  return lastAccepted;
}

function parseAcceptEncoding(header: string): ReadonlyMap<string, number> {
  const accepted = new Map<string, number>();
  for (const item of header.split(',')) {
    const [name, ...params] = item.split(';');
    const coding = name!.trim().toLowerCase();
    if (coding === '') continue;
    let q = 1;
    for (const param of params) {
      const match = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(param);
      if (match) q = Number(match[1]);
    }
    if (!Number.isFinite(q)) q = 0;
    accepted.set(coding, Math.max(accepted.get(coding) ?? 0, Math.min(q, 1)));
  }
  return accepted;
}

/**
 * The coding to reply in: of `available` (the server's, best first), the one the client gives the highest
 * q-value, the server's order breaking ties; undefined when it names none of them (or sends no
 * Accept-Encoding: a client that does not ask gets no coding, whatever RFC 9110 allows).
 */
export function negotiateCoding(header: string | null, available: readonly ContentCoding[]): ContentCoding | undefined {
  const accepted = acceptedCodings(header);
  if (accepted.size === 0) return undefined;
  const any = accepted.get('*');
  let best: ContentCoding | undefined;
  let bestQ = 0;
  for (const coding of available) {
    const q = accepted.get(coding) ?? any ?? 0;
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best;
}

/** The codings a Content-Encoding lists, in the order applied, `identity` left out (lower case). */
export function contentEncodingsOf(header: string | null): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
}

/** A coding this package knows, by its token (`x-gzip` is gzip, RFC 9110 8.4.1.3), or undefined. */
export function knownCoding(token: string): ContentCoding | undefined {
  if (token === 'x-gzip') return 'gzip';
  return (CONTENT_CODINGS as readonly string[]).includes(token) ? (token as ContentCoding) : undefined;
}
