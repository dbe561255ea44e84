import type { WireKind } from '../codec/message-codec.js';

/** A transport's `wire` option: one wire, or 'auto' (the transport finds out what the peer speaks). */
export type WireChoice = WireKind | 'auto';

/** How a client's wire was settled (its `onwireselected`, called once per connection). */
export interface WireSelection {
  /** The wire used from now on. */
  wire: WireKind;
  reason: WireSelectionReason;
  /** HTTP: the status of the answer that settled it. */
  status?: number;
}

/** Why an HTTP client stopped speaking MessagePack to a server (http/client/wire-fallback.ts decides). */
export type HttpFallbackReason = 'unsupported-media-type' | 'not-acceptable' | 'bad-request' | 'unreadable-body' | 'json-reply' | 'server-error';

/**
 * - 'forced': the transport's `wire` option named the wire ('msgpack' or 'json');
 * - 'upgrade-accepted' (stdio): the server accepted the offer, and both switched to MessagePack;
 * - 'upgrade-not-accepted' (stdio): the server answered an offering request without accepting (a JSON-only
 *   server, or one forced to JSON), so the connection stays JSON;
 * - 'msgpack-reply' (HTTP): the server answered a MessagePack request in MessagePack;
 * - an HttpFallbackReason (HTTP): the server showed it does not take MessagePack, so the client speaks JSON;
 * - 'remembered' (HTTP): an earlier connection of this process to the same endpoint fell back to JSON, so
 *   this one speaks JSON from its first request (http/client/wire-memory.ts).
 */
export type WireSelectionReason = 'forced' | 'upgrade-accepted' | 'upgrade-not-accepted' | 'msgpack-reply' | 'remembered' | HttpFallbackReason;
