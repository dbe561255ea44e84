import { isInitializedNotification } from '../../jsonrpc/kinds.js';
import type { JSONRPCMessage, TransportSendOptions } from '../../mcp/types.js';
import type { MessageCodec, WireKind } from '../../codec/message-codec.js';
import type { JsonMessageCodec } from '../../codec/json-codec.js';
import { validated } from '../../codec/validate.js';
import { StreamableHTTPError } from '../errors.js';
import { mediaTypeEssence } from '../media.js';
import { replyForm } from './client-media.js';
import { readCappedBody, readCappedJson } from './capped-body.js';
import type { RequestSignal } from './request-signals.js';
import type { StreamOptions } from './server-stream.js';

/** What reading the reply to a POST needs from the transport. */
export interface ReplyHost {
  /** The JSON codec reads text as well as bytes (a JSON body is read as text where it can be). */
  readonly codecs: { readonly msgpack: MessageCodec; readonly json: JsonMessageCodec };
  /** The cap on a one-body reply (the client's `maxMessageBytes`). */
  readonly maxMessageBytes: number;
  /** The transport's onmessage. */
  deliver(message: JSONRPCMessage): void;
  /** The initialized notification was accepted: time for the standalone GET stream. */
  openStandaloneStream(): void;
  readStream(body: ReadableStream<Uint8Array> | null, wire: WireKind, options: StreamOptions, release: () => void): void;
}

/**
 * Reads the reply to an accepted POST: nothing (a 202, or a post without requests), one body of replies
 * on either wire, or a stream, which goes on being read and lets the request's signal go when it ends.
 * True for a stream.
 */
export async function readPostReply(response: Response, message: JSONRPCMessage | JSONRPCMessage[], request: RequestSignal, options: TransportSendOptions | undefined, host: ReplyHost): Promise<boolean> {
  if (response.status === 202) {
    await response.body?.cancel();
    if (!Array.isArray(message) && isInitializedNotification(message)) host.openStandaloneStream();
    return false;
  }
  const contentType = response.headers.get('content-type');
  const form = replyForm(mediaTypeEssence(contentType));
  if (!hasRequests(message)) {
    await response.body?.cancel();
    return false;
  }
  if (form?.stream) {
    const { onresumptiontoken, requestSignal, onRequestStreamEnd } = options ?? {};
    host.readStream(response.body, form.wire, { onresumptiontoken, requestSignal, onRequestStreamEnd }, request.done);
    return true;
  }
  if (form) {
    const body = form.wire === 'json' ? await readCappedJson(response, host.maxMessageBytes) : await readCappedBody(response, host.maxMessageBytes);
    const value = form.wire === 'json' ? host.codecs.json.decodeValue(body) : host.codecs.msgpack.decodeValue(body as Uint8Array);
    const replies = Array.isArray(value) ? value.map(validated) : [validated(value)];
    for (const reply of replies) host.deliver(reply);
    return false;
  }
  await response.body?.cancel();
  throw new StreamableHTTPError(-1, `Unexpected content type: ${contentType}`);
}

function hasRequests(message: JSONRPCMessage | JSONRPCMessage[]): boolean {
  const messages = Array.isArray(message) ? message : [message];
  return messages.some((m) => 'method' in m && 'id' in m && m.id !== undefined);
}
