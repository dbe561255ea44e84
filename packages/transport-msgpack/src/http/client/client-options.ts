import type { FetchLike, OAuthClientProvider, StreamableHTTPReconnectionOptions, TokenAuthProvider } from '../../mcp/types.js';
import type { NativeBytesOptions } from '../../native-bytes/adapter.js';
import type { WireChoice, WireSelection } from '../../wire-choice/wire-selection.js';
import type { EncodingPolicy } from '../../codec/encoding-policy.js';
import type { OldLimitNames, ReceiveLimits } from '../../wire/receive-limits.js';
import type { WireFallback } from './client-wire.js';

/**
 * `maxMessageBytes` (ReceiveLimits) caps every reply the client reads: a one-body reply, one event of a JSON
 * stream, one frame of a MessagePack stream. Default 64 MiB.
 */
export interface HttpMsgpackClientOptions extends ReceiveLimits, Pick<OldLimitNames, 'maxFrameBytes'> {
  requestInit?: RequestInit;
  /**
   * OAuth, run by the installed SDK's auth() as the SDK's own transport runs it (README, "Authorization").
   * Either SDK's OAuthClientProvider, or SDK v2's minimal AuthProvider (`token()`, `onUnauthorized()`).
   */
  authProvider?: OAuthClientProvider | TokenAuthProvider;
  /**
   * Which SDK's OAuth flow `authProvider` gets: 1 (`@modelcontextprotocol/sdk`) or 2
   * (`@modelcontextprotocol/client`). Default: the SDK whose Client drives the transport, known before its
   * first request (a v2 Client or a v2-only provider member shows v2); else the one installed; with both
   * installed and nothing showing v2, v1. Set it where a callback is redeemed on a fresh transport before
   * any request (finishAuth), with both SDKs installed.
   */
  oauthSdk?: 1 | 2;
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
   * Whether close() ends the session on the server (DELETE, waited for at most 2 s, failures ignored) so its
   * server and anything behind it (a bridge's child process) go at once rather than at the server's idle
   * expiry. Default true; false keeps it, for a client that resumes the session later by `sessionId`.
   * The SDK's own transport never ends the session on close().
   */
  endSessionOnClose?: boolean;
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
  /**
   * The native-bytes extension (SPEC.md section 8): offer it on the msgpack wire; once the server confirms,
   * media arrives as bin (handed to the SDK as base64, or as bytes through callToolNative() & co.). Default:
   * not offered, but placeholders from nativeImage() & co. are still sent as base64; false: no adapter.
   */
  nativeBytes?: boolean | NativeBytesOptions;
  /**
   * HTTP content codings (README, "Compression"): offer the codings the fetch decodes (zstd where the
   * runtime has it, br, gzip; decoded sizes count against `maxMessageBytes`), refuse a reply in any other,
   * and compress request bodies of 1 KiB or more once the server has said it takes a coding (its
   * Accept-Encoding). Default true; false sends `Accept-Encoding: identity` and never codes a request.
   */
  compression?: boolean;
  /**
   * On MCP 2026-07-28 with SDK v2's Client (its connect opens with `server/discover`): post a tools/list
   * beside the discover and answer the SDK's first tools/list (no cursor, same envelope, within 10 s) from
   * its result, so connect + listTools takes one round trip (README, "Tools list prefetch"). Any failure of
   * it is silent and the SDK's own request goes out. Default true, but false with an `authProvider` or a
   * `fetch` of yours (a token the discover has to refresh would be refused on the prefetch too: one more 401
   * at the server, with DPoP one more nonce challenge; a fetch that runs OAuth itself would start a second
   * authorization beside the discover's). Set true to have it there anyway.
   */
  prefetchToolsList?: boolean;
}
