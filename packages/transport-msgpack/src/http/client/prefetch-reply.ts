import type { JSONRPCMessage } from '../../mcp/types.js';
import type { ReplyHost } from './post-reply.js';
import type { RequestSignals } from './request-signals.js';
import { readServerStream, type StreamHost } from './server-stream.js';

/** A reply reader's host that keeps what it reads (tools-list-prefetch.ts), and the end of a streamed reply. */
export interface CapturingHost {
  host: ReplyHost;
  /** Every message read from the reply, errors included, in order. */
  messages: JSONRPCMessage[];
  /** Settles when a streamed reply is over (never rejects); a one-body reply is over when readPostReply returns. */
  streamEnded: Promise<void>;
}

/**
 * The transport's reply readers (readPostReply, readServerStream), pointed at a list instead of the SDK: the
 * prefetch's answer is decoded on the path every reply takes (content codings, either wire, native bytes,
 * the caps), but nothing in it reaches the SDK or onerror, no message goes back to the server, and a stream
 * cut short is not resumed (the prefetch is then dropped, and the SDK asks itself).
 */
export function capturingHost(base: { codecs: ReplyHost['codecs']; maxMessageBytes: number; signals: RequestSignals }): CapturingHost {
  const messages: JSONRPCMessage[] = [];
  let ended!: () => void;
  const streamEnded = new Promise<void>((resolve) => (ended = resolve));
  const deliver = (message: JSONRPCMessage) => void messages.push(message);
  const ignore = () => {};
  const streamHost: StreamHost = { ...base, deliver, report: ignore, reply: ignore, retry: ignore, reconnect: ignore };
  const host: ReplyHost = {
    codecs: base.codecs,
    maxMessageBytes: base.maxMessageBytes,
    deliver,
    openStandaloneStream: ignore,
    readStream: (body, wire, options, release) =>
      readServerStream(
        body,
        wire,
        options,
        false,
        () => {
          release();
          ended();
        },
        streamHost,
      ),
  };
  return { host, messages, streamEnded };
}
