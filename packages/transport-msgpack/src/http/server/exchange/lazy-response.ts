// A reply in memory on a runtime whose adapter writes the bytes itself (node:http): the adapter reads the
// pieces and the header record, never the web body, so the ReadableStream, the inner Response and the
// Headers are made only if something else reads them (a fetch-style caller of handle(), a wrapper). Measured
// on a 5 MiB native read over HTTP on Node (docs/MEASUREMENTS.md, lab notes, "Media against the physical
// floor"): the stream and the Response made per reply were a share of the server's time the adapter never used.
// Node only (runtime.adapterWritesReplyText): a runtime that sends a Response itself (Bun.serve, Deno, Workers)
// reads its native body slot, not these getters, and would send an empty body.

/**
 * A Response with no body of its own: `body`, its readers and `headers` are built on first use from `make`
 * and the header record. Until `headers` is read, the record is what the response says (see untouchedHeaders).
 */
export class LazyBodyResponse extends Response {
  #made: Response | undefined;
  #headers: Headers | undefined;

  #length: number | (() => number);

  /**
   * `headerRecord`: the reply's own headers, owned by this response, without Content-Length; `length`: the
   * body's byte length, or how to measure it (once, on first use: a reply that is content-coded instead is
   * never measured); `make`: the real body, made at most once.
   */
  constructor(
    status: number,
    readonly headerRecord: Record<string, string>,
    length: number | (() => number),
    private readonly make: () => Response,
  ) {
    super(null, { status });
    this.#length = length;
  }

  /** The body's byte length. */
  get length(): number {
    if (typeof this.#length === 'function') this.#length = this.#length();
    return this.#length;
  }

  private made(): Response {
    this.#made ??= this.make();
    return this.#made;
  }

  override get headers(): Headers {
    this.#headers ??= new Headers({ ...this.headerRecord, 'Content-Length': String(this.length) });
    return this.#headers;
  }

  /** Whether nobody has read the body (so there is no stream to cancel). */
  get untouchedBody(): boolean {
    return this.#made === undefined;
  }

  /** The header record while nobody has read (and so could have changed) `headers`. */
  get untouchedHeaders(): Record<string, string> | undefined {
    return this.#headers === undefined ? this.headerRecord : undefined;
  }

  override get body(): Response['body'] {
    return this.made().body;
  }

  override get bodyUsed(): boolean {
    return this.#made?.bodyUsed ?? false;
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.made().arrayBuffer();
  }

  override blob(): Promise<Blob> {
    return this.made().blob();
  }

  override formData(): Promise<FormData> {
    return this.made().formData();
  }

  override json(): Promise<unknown> {
    return this.made().json();
  }

  override text(): Promise<string> {
    return this.made().text();
  }

  override bytes(): ReturnType<Response['bytes']> {
    return this.made()
      .arrayBuffer()
      .then((buffer) => new Uint8Array(buffer));
  }

  override clone(): Response {
    return new Response(this.made().clone().body, { status: this.status, headers: this.headers });
  }
}

/** The header record of a lazy reply nobody has read the headers of (to write as they are), else undefined. */
export function untouchedHeaders(response: Response): Record<string, string> | undefined {
  return response instanceof LazyBodyResponse ? response.untouchedHeaders : undefined;
}

/**
 * Whether the reply has a Content-Encoding, read from a lazy reply's header record while nobody has read its
 * headers: reading `headers` would make them (a Headers object, and the body's length for Content-Length, a
 * UTF-8 measure of a whole JSON text), and the coded reply path would then copy them back out header by
 * header. On Node 24, in process: about 2 us a reply whose body is MessagePack pieces, 2-20 us one whose body
 * is a JSON text of 0.2-110 KB, against 0.2 so (docs/MEASUREMENTS.md, "The coded reply's cost beyond its coder").
 */
export function hasContentEncoding(response: Response): boolean {
  const record = untouchedHeaders(response);
  if (record === undefined) return response.headers.get('content-encoding') !== null;
  for (const name in record) if (name.toLowerCase() === 'content-encoding') return true;
  return false;
}

/** Cancels a reply's body if it was ever made: nobody reads it once the adapter wrote the bytes itself. */
export function dropBody(response: Response): void {
  if (response instanceof LazyBodyResponse && response.untouchedBody) return;
  void response.body?.cancel().catch(() => {});
}
