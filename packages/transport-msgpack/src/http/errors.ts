/**
 * The HTTP client's error for a reply it cannot use (a non-2xx status, an unexpected content type), made to
 * be recognised by code written for either SDK generation:
 * - SDK v1: `code` is the HTTP status (-1 for an unexpected content type) and the message reads
 *   "Streamable HTTP error: ...", as v1's StreamableHTTPError; once linkSdkV1HttpError() has run (the
 *   transport's start() does it) it is also `instanceof` v1's StreamableHTTPError, when v1 is installed.
 * - SDK v2: it carries v2's error brands (`instanceof SdkError` / `SdkHttpError` hold, through the
 *   `Symbol.for('mcp.sdk.errorBrands')` set v2 checks), with `data: { status, statusText, text }`, `status`
 *   and `statusText`, the fields v2's Client reads (e.g. its version negotiation classifies a probe's
 *   failure by `data.status` and the body in `data.text`). Its `code` stays the number, not v2's string.
 */

const SDK_V2_ERROR_BRANDS = Symbol.for('mcp.sdk.errorBrands');

export interface HttpErrorData {
  status: number;
  statusText?: string;
  /** The reply's body as text (of a MessagePack error body: its error message), for a POST that failed. */
  text?: string;
}

export class StreamableHTTPError extends Error {
  readonly code: number;
  readonly data: HttpErrorData;

  constructor(status: number, message: string, details: { statusText?: string; text?: string } = {}) {
    super(`Streamable HTTP error: ${message}`);
    this.code = status;
    this.data = { status, ...details };
    // An unexpected content type is no HTTP status: v2 reports that as a plain SdkError.
    const brands = status < 0 ? ['mcp.SdkError'] : ['mcp.SdkError', 'mcp.SdkHttpError'];
    Object.defineProperty(this, SDK_V2_ERROR_BRANDS, { value: new Set(brands), enumerable: false, configurable: true });
  }

  get status(): number {
    return this.data.status;
  }

  get statusText(): string | undefined {
    return this.data.statusText;
  }
}

let linking: Promise<void> | undefined;

/**
 * When SDK v1 is installed, makes every StreamableHTTPError an instance of v1's class of that name too, so
 * v1 code that tests `instanceof StreamableHTTPError` keeps working. Once per process; without v1, nothing.
 */
export function linkSdkV1HttpError(): Promise<void> {
  // The catch right on import(): a bundler then leaves a missing v1 to this run-time check (see oauth-sdk.ts).
  linking ??= import('@modelcontextprotocol/sdk/client/streamableHttp.js')
    .catch(() => undefined)
    .then((v1) => {
      const base: unknown = v1?.StreamableHTTPError;
      if (typeof base === 'function' && !(StreamableHTTPError.prototype instanceof base)) {
        Object.setPrototypeOf(StreamableHTTPError.prototype, base.prototype);
      }
    });
  return linking;
}
