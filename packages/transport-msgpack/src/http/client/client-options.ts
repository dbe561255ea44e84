import type { FetchLike, OAuthClientProvider, StreamableHTTPReconnectionOptions } from '../../mcp/types.js';
import type { NativeBytesOptions } from '../../native-bytes/adapter.js';
import type { WireChoice, WireSelection } from '../../wire-choice/wire-selection.js';
import type { EncodingPolicy } from '../../codec/encoding-policy.js';
import type { DecodeBudget } from '../../wire/constants.js';
import type { WireFallback } from './client-wire.js';

export interface HttpMsgpackClientOptions {
  requestInit?: RequestInit;
  authProvider?: OAuthClientProvider;
  /** Replaces the default fetch (an undici keep-alive agent on Node, the global fetch on Bun). */
  fetch?: FetchLike;
  /**
   * Redirects, as the SDK's client handles them: 'same-origin' (default) follows one only when it keeps the
   * method and stays within the request's origin (or moves it from http to https on default ports), and
   * fails the request otherwise, so a session id or token is never sent elsewhere; 'follow' leaves every
   * redirect to the fetch implementation. Applies to the OAuth requests of `authProvider` too.
   */
  redirectPolicy?: 'same-origin' | 'follow';
  reconnectionOptions?: StreamableHTTPReconnectionOptions;
  sessionId?: string;
  /**
   * 'auto' (default): post MessagePack, and speak JSON to a server whose answer shows it does not take it
   * (http/wire-fallback.ts). 'msgpack': MessagePack only (such an answer is an error). 'json': JSON only.
   */
  wire?: WireChoice;
  /** Called once if the server turns out not to speak MessagePack and the client switches to JSON. */
  onwirefallback?: (fallback: WireFallback) => void;
  /** Called once, when the wire is settled (see `onwireselected` on the transport). */
  onwireselected?: (selection: WireSelection) => void;
  /**
   * How requests are posted on the MessagePack wire once the server has shown it speaks msgpack-v1 (its
   * `Mcp-Msgpack-Wire` header, SPEC.md 9.6): 'cheapest-cpu' (default) each request in the encoding that
   * costs less CPU on this runtime, media as bytes always MessagePack; 'smallest' MessagePack always
   * (0.1.0's behaviour); 'json' JSON always. Replies are the server's choice (its own `encoding`).
   */
  encoding?: EncodingPolicy;
  /** Largest message accepted in a MessagePack reply stream (one frame's payload), in bytes. Default 64 MiB. */
  maxMessageBytes?: number;
  /** @deprecated The old name of `maxMessageBytes` (which wins when both are given). */
  maxFrameBytes?: number;
  /** Deepest nesting accepted in a received MessagePack message. Default 128. */
  maxDepth?: number;
  /** The decode budget for received MessagePack messages (SPEC.md 4.1.9): arrays and maps, and distinct short
   * keys, per payload byte. Default DEFAULT_DECODE_BUDGET (65,536 plus one per 8 bytes; per 32 for keys). */
  decodeBudget?: Partial<DecodeBudget>;
  /**
   * The native-bytes extension (SPEC.md section 8): offer it on the msgpack wire; once the server confirms,
   * media arrives as bin (handed to the SDK as base64, or as bytes through callToolNative() & co.). Default:
   * not offered, but placeholders from nativeImage() & co. are still sent as base64; false: no adapter.
   */
  nativeBytes?: boolean | NativeBytesOptions;
}
