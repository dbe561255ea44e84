import type { JSONRPCMessage } from '../mcp/types.js';
import type { AdvertisementProbe } from '../codec/message-codec.js';
import { isRecord } from '../jsonrpc/is-record.js';
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY, metaOf } from '../jsonrpc/envelope.js';

/** The id of the transport's own server/discover: a string, where the SDKs number their requests. */
export const OWN_DISCOVER_ID = 'mcp-msgpack/discover';

const ENVELOPE_KEYS = [PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY];

type RequestId = string | number;

/**
 * How long a request with bytes waits for the answer to the own discover. Our servers answer at once; a
 * server that accepted the upgrade and never answers would otherwise hold such a request until the
 * connection ends. Past it the request goes with what is known (its media as base64), and a late answer
 * still turns bin on for the requests after it.
 */
export const OWN_DISCOVER_WAIT_MS = 5_000;

/**
 * The client's own `server/discover` after a stdio wire upgrade on 2026-07-28 (SPEC.md 7.1, 8.1 rules 6-7).
 * The SDK's first request (its `server/discover`, or any other) went as a JSON line with the wire offer, so
 * the answer accepting the upgrade was a JSON line too and advertised no native bytes. Right after the
 * switch the transport sends a `server/discover` of its own as a frame, with the envelope of the request
 * whose answer accepted; the adapter reads the advertisement from its answer like any other discover
 * result, and the application never sees it. One round trip, beside the SDK's next requests: only a
 * request with bytes to send waits for it, so that they go as bin when the server advertised the extension.
 */
export class OwnDiscover implements AdvertisementProbe {
  /** The envelopes of 2026-07-28 requests sent as JSON lines with the wire offer, until the upgrade settles. */
  private readonly envelopes = new Map<RequestId, Record<string, unknown>>();
  private pending: Promise<void> | undefined;
  private release: (() => void) | undefined;
  /** Whether the own discover is out and its answer, kept from the SDK, not yet read. */
  private asked = false;

  /** `hasBytes`: whether a request has media that would go as bin once the extension was advertised. */
  constructor(
    private readonly hasBytes: (message: JSONRPCMessage) => boolean,
    private readonly waitMs = OWN_DISCOVER_WAIT_MS,
  ) {}

  /** A 2026-07-28 request sent as a JSON line with the wire offer (its answer may accept the upgrade). */
  noteOffer(id: RequestId, params: unknown): void {
    const meta = metaOf(params);
    if (meta === undefined) return;
    const envelope: Record<string, unknown> = {};
    for (const key of ENVELOPE_KEYS) if (key in meta) envelope[key] = meta[key];
    this.envelopes.set(id, envelope);
  }

  settled(answer: JSONRPCMessage, accepted: boolean): JSONRPCMessage | undefined {
    const envelope = this.envelopes.get((answer as { id?: RequestId }).id as RequestId);
    this.envelopes.clear();
    if (!accepted || envelope === undefined) return undefined;
    this.asked = true;
    this.pending = new Promise((resolve) => (this.release = resolve));
    const timer = setTimeout(() => this.stopWaiting(), this.waitMs);
    (timer as { unref?: () => void }).unref?.();
    return { jsonrpc: '2.0', id: OWN_DISCOVER_ID, method: 'server/discover', params: { _meta: envelope } } as JSONRPCMessage;
  }

  answers(message: JSONRPCMessage): boolean {
    const record = message as unknown as Record<string, unknown>;
    if (!this.asked || record.id !== OWN_DISCOVER_ID || 'method' in record) return false;
    this.end();
    return true;
  }

  ready(message: JSONRPCMessage): Promise<void> | undefined {
    if (this.pending === undefined || !isRecord(message) || !('method' in message) || !('id' in message)) return undefined;
    return this.hasBytes(message) ? this.pending : undefined;
  }

  end(): void {
    this.asked = false;
    this.stopWaiting();
  }

  private stopWaiting(): void {
    this.release?.();
    this.release = undefined;
    this.pending = undefined;
  }
}
