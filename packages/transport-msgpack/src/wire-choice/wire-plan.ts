import type { WireKind } from '../codec/message-codec.js';
import type { WireChoice } from './wire-selection.js';

/** Which transport reads a `wire` option: each settles 'auto' its own way, for reasons of its medium. */
export type WireRole = 'stdio-client' | 'stdio-server' | 'http-client';

/** What a transport does with its `wire` option, decided once, here. */
export interface WirePlan {
  /** The wire spoken from the outset; undefined when the peer's first byte tells (a stdio server on 'auto'). */
  readonly start: WireKind | undefined;
  /** The option named a wire: it is settled from the outset (`onwireselected` reason 'forced'). */
  readonly forced: boolean;
  /**
   * stdio only, its part in the wire upgrade (SPEC.md 7.1): 'offer' (a client on 'auto': JSON lines that
   * offer msgpack-v1), 'accept' (a server on 'auto'), 'ignore' (a forced server: offers are removed from
   * messages, never accepted); undefined for a forced client and over HTTP.
   */
  readonly upgrade?: 'offer' | 'accept' | 'ignore';
}

/**
 * The one reading of a `wire` option (default 'auto'). A named wire is spoken from the outset. On 'auto':
 * - a stdio client starts in JSON lines, which every server reads, and offers the upgrade;
 * - a stdio server reads the client's first byte (a frame or a line) and accepts an offer;
 * - an HTTP client starts on MessagePack, since each POST can fall back to JSON on the server's answer
 *   (http/client/wire-fallback.ts): the first answer that shows either way settles it.
 */
export function planWire(choice: WireChoice | undefined, role: WireRole): WirePlan {
  const wire = choice ?? 'auto';
  if (wire !== 'auto') return { start: wire, forced: true, upgrade: role === 'stdio-server' ? 'ignore' : undefined };
  if (role === 'stdio-client') return { start: 'json', forced: false, upgrade: 'offer' };
  if (role === 'stdio-server') return { start: undefined, forced: false, upgrade: 'accept' };
  return { start: 'msgpack', forced: false };
}
