import type { JSONRPCMessage, RequestId } from '../../mcp/types.js';
import type { WireCodecs } from '../../codec/message-codec.js';
import { validated } from '../../codec/validate.js';
import { envelopeVersion, isModernProtocolVersion } from '../../jsonrpc/envelope.js';
import { isJSONRPCRequest } from '../../jsonrpc/kinds.js';
import { MSGPACK_MEDIA_TYPE, mediaTypeEssence } from '../media.js';
import { replyForm } from './client-media.js';
import { unfollowedRedirect } from './redirects.js';
import { readCappedBody } from './capped-body.js';
import { FramingError } from '../../wire/errors.js';

/**
 * A 2026-07-28 request refused with a JSON-RPC error for it (-32020, -32022, ...): that error is the answer
 * to the call, as SDK v2's client treats it (its auto mode falls back on -32022). Undefined otherwise.
 */
export async function refusalAnswer(response: Response, message: JSONRPCMessage | JSONRPCMessage[], codecs: WireCodecs, maxBytes: number): Promise<JSONRPCMessage | undefined> {
  return response.status === 400 && isModernRequest(message) ? errorAnswer(response, message.id, codecs, maxBytes) : undefined;
}

/**
 * Whether a 400 is a server's "not initialized yet" (SPEC.md 9.4, `data.reason` 'not-initialized'): a request
 * that overtook `notifications/initialized` at a server that did not wait for it. Read from a copy.
 */
export async function isNotInitializedRefusal(response: Response, codecs: WireCodecs, maxBytes: number): Promise<boolean> {
  if (response.status !== 400) return false;
  const form = replyForm(mediaTypeEssence(response.headers.get('content-type')));
  if (!form || form.stream) return false;
  try {
    const value = codecs[form.wire].decodeValue(await readCappedBody(response.clone(), maxBytes)) as { error?: { data?: { reason?: unknown } } };
    return value?.error?.data?.reason === 'not-initialized';
  } catch {
    return false;
  }
}

/**
 * The JSON-RPC error answering request `id` in an error reply, read from a copy of the response so
 * errorText() can still read it when it is something else.
 */
async function errorAnswer(response: Response, id: RequestId, codecs: WireCodecs, maxBytes: number): Promise<JSONRPCMessage | undefined> {
  const form = replyForm(mediaTypeEssence(response.headers.get('content-type')));
  if (!form || form.stream) return undefined;
  try {
    const bytes = await readCappedBody(response.clone(), maxBytes);
    const value = validated(codecs[form.wire].decodeValue(bytes));
    return 'error' in value && value.id === id ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The text of an error reply: which redirect was not followed, or the message of a MessagePack error body
 * (JSON and other bodies are their own text).
 */
export async function errorText(response: Response, codecs: WireCodecs, redirect: string | undefined, maxBytes: number): Promise<string> {
  if (redirect !== undefined) {
    await response.body?.cancel();
    return redirect;
  }
  try {
    const bytes = await readCappedBody(response, maxBytes);
    if (mediaTypeEssence(response.headers.get('content-type')) === MSGPACK_MEDIA_TYPE) {
      const value = codecs.msgpack.decodeValue(bytes) as { error?: { message?: unknown } };
      return String(value?.error?.message ?? response.statusText);
    }
    return new TextDecoder().decode(bytes);
  } catch (error) {
    // An error body over the cap is not read: the status says what happened, the cap why the text is missing.
    return error instanceof FramingError ? `${response.statusText} (${error.message})` : response.statusText;
  }
}

/** Says which redirect was not followed, for a redirect response the policy returned as it was. */
export function redirectText(response: Response, url: URL, redirectPolicy: 'same-origin' | 'follow' | undefined): string | undefined {
  const text = unfollowedRedirect(response, url);
  return text !== undefined && redirectPolicy !== 'follow' ? `${text} (redirectPolicy: 'same-origin')` : text;
}

/** A single request whose `_meta` claims a modern revision (2026-07-28 and later). */
function isModernRequest(message: JSONRPCMessage | JSONRPCMessage[]): message is JSONRPCMessage & { id: RequestId } {
  if (Array.isArray(message) || !isJSONRPCRequest(message)) return false;
  const version = envelopeVersion(message.params);
  return version !== undefined && isModernProtocolVersion(version);
}
