import type { Transport } from '../../../mcp/types.js';
import type { ExchangeTransport } from './exchange-transport.js';
import type { RequestEra } from './era.js';
import { carryBytes, inMemoryBody } from './responses.js';
import type { HttpHandleOptions, HttpRequestLike } from './server-options.js';

/** What the handler connects each transport to: an McpServer or a low-level Server. */
export interface ConnectableServer {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

/** A server connected to its transport: a session's, or one request's. */
export interface ServedInstance<T extends ExchangeTransport = ExchangeTransport> {
  readonly transport: T;
  readonly server: ConnectableServer;
}

/** Closes the transport, then its server; a failure of either leaves nothing to do. */
export async function closeInstance(instance: ServedInstance): Promise<void> {
  await instance.transport.close().catch(() => {});
  await instance.server.close().catch(() => {});
}

/** What serveOnce does around a reply stream, and whether the instance is kept after. */
export interface OnceOptions<I extends ServedInstance> {
  /** Takes the instance back once its reply has been read (true), else it is closed. */
  keep?: (instance: I) => boolean;
  /** A reply stream opens and ends: counted as work while it lasts. */
  streamOpened(): void;
  streamEnded(): void;
}

/** One request on an instance of its own, closed once its reply has been read unless `keep` takes it back. */
export async function serveOnce<I extends ServedInstance>(instance: I, req: HttpRequestLike, options: HttpHandleOptions, era: RequestEra, once: OnceOptions<I>): Promise<Response> {
  let response: Response;
  try {
    response = await instance.transport.serveRouted(req, options, era);
  } catch (error) {
    await closeInstance(instance);
    throw error;
  }
  const done = () => {
    if (!once.keep?.(instance)) void closeInstance(instance);
  };
  // A reply in memory is complete as it is made: nothing of it runs on the server any more, and what is
  // encoded stays where it is (the encoder never writes over bytes it handed out). A stream lives as long
  // as its reader: until it ends or the client goes away.
  if (inMemoryBody(response) === undefined) {
    once.streamOpened();
    return afterBody(response, () => {
      once.streamEnded();
      done();
    });
  }
  done();
  return response;
}

/** Calls done once the response body has been fully read or cancelled (at once if it has none). */
export function afterBody(response: Response, done: () => void): Response {
  const body = response.body;
  if (!body) {
    done();
    return response;
  }
  const reader = body.getReader();
  let finished = false;
  const finish = () => {
    if (!finished) {
      finished = true;
      done();
    }
  };
  const tracked = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done: end, value } = await reader.read();
          if (end) {
            controller.close();
            finish();
          } else controller.enqueue(value);
        } catch (error) {
          controller.error(error);
          finish();
        }
      },
      async cancel(reason) {
        finish();
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  ); // read only when asked: a body the node adapter writes itself is never pulled
  return carryBytes(response, new Response(tracked, { status: response.status, headers: response.headers }));
}
