/**
 * A fetch for a client transport that keeps a copy of every response body's bytes, as they came off the
 * network (the client under test reads the other copy): what the wire really carried, whatever the client
 * then made of it.
 */
export interface RecordingFetch {
  fetch: typeof fetch;
  /** Every response so far: its content type and the bytes read of its body. */
  responses: { contentType: string; chunks: Uint8Array[] }[];
  /** All body bytes received, in one buffer. */
  received(): Buffer;
}

export function recordingFetch(): RecordingFetch {
  const responses: RecordingFetch['responses'] = [];
  const recorded: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body) return response;
    const entry = { contentType: response.headers.get('content-type') ?? '', chunks: [] as Uint8Array[] };
    responses.push(entry);
    const [forClient, forRecord] = response.body.tee();
    void (async () => {
      const reader = forRecord.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          entry.chunks.push(value);
        }
      } catch {
        // The client cancelled its copy (a stream closed early): what was read is what there was.
      }
    })();
    return new Response(forClient, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return {
    fetch: recorded,
    responses,
    received: () => Buffer.concat(responses.flatMap((response) => response.chunks)),
  };
}
