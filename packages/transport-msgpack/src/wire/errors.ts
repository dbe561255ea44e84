/**
 * The two kinds of wire failure SPEC.md distinguishes. A framing error means the byte stream can no
 * longer be split into frames, so the connection must close. A payload error concerns one well-framed
 * message only: it is reported (and answered when an id can be recovered) and the connection goes on.
 */

export type FramingErrorCode =
  | 'frame-too-large' // header announces more than the configured cap
  | 'truncated-frame' // the stream ended inside a header or payload
  | 'line-too-long' // JSON mode: a line grew past the cap without a newline
  | 'message-too-large'; // HTTP client: a reply body, or one event of a JSON reply stream, past the cap

export class FramingError extends Error {
  override readonly name = 'FramingError';
  constructor(
    readonly code: FramingErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export type PayloadErrorCode =
  | 'empty-payload' // a zero-length frame
  | 'malformed-msgpack' // not one complete, well-formed MessagePack value
  | 'malformed-json' // JSON wire: a line or body that is not JSON
  | 'forbidden-type' // an ext type, the reserved 0xc1, or a bin where the wire does not allow one
  | 'non-string-key' // a map key that is not a string
  | 'forbidden-key' // a __proto__ key
  | 'too-deep' // nesting deeper than the configured limit
  | 'non-finite-number' // a float holding NaN or an infinity, which JSON cannot carry
  | 'over-budget' // more arrays and maps than the decode budget allows for the payload's size
  | 'not-json-rpc' // a valid value that is not a JSON-RPC 2.0 message
  | 'unencodable'; // (sending side) a value the JSON data model has no place for

/** What could still be read from a bad message: enough to answer it, or to fail the request it answers. */
export interface MessageClues {
  id?: string | number;
  hasMethod: boolean;
  hasResultOrError: boolean;
}

export class PayloadError extends Error {
  override readonly name = 'PayloadError';
  constructor(
    readonly code: PayloadErrorCode,
    message: string,
    readonly clues?: MessageClues,
  ) {
    super(message);
  }
}
