import type { JSONRPCMessage } from '../mcp/types.js';
import type { AdvertisementProbe, MessageAdapter, WireKind } from '../codec/message-codec.js';
import { cluesOf } from '../codec/validate.js';
import { PayloadError } from '../wire/errors.js';
import { bytesToBase64 } from './base64.js';
import { NATIVE_BYTES_VERSION, announcedVersion, withCapability } from './capability.js';
import { isRecord } from '../jsonrpc/is-record.js';
import { acceptsUpgrade, offersUpgrade } from '../wire-choice/upgrade-offer.js';
import { INTERNAL_ERROR } from '../jsonrpc/error-codes.js';
import { countBins, mapMediaFields } from './media-fields.js';
import { giveBack } from '../buffers/lent-bytes.js';
import { isMarkedNative } from './native-requests.js';
import { placeholders } from './registry.js';
import { relayedBytes, type RelayedBase64Options } from './relayed-base64.js';
import { OwnDiscover } from './own-discover.js';
import { CLIENT_CAPABILITIES_META_KEY, envelopeVersion, isModernProtocolVersion, metaOf } from '../jsonrpc/envelope.js';

export type NativeBytesRole = 'client' | 'server';

export interface NativeBytesOptions {
  /**
   * Offer (client) or confirm (server) the extension. Default true. With false the adapter still swaps
   * placeholders from nativeImage() and friends for base64, so handlers using them keep working.
   */
  negotiate?: boolean;
  /**
   * For relays of a JSON peer (relayed-base64.ts): base64 text at a media field is sent as bin too, decoded
   * once, whenever this message is sent as bin; wherever it is not, the text is sent untouched. Text that is
   * not strict base64 is sent unchanged and reported. Default false: text at media fields is never looked at.
   */
  relayBase64Media?: boolean | RelayedBase64Options;
}

/**
 * The native-bytes extension on one connection (SPEC.md, "Native bytes extension"); a transport creates
 * one per connection (per session over HTTP) and calls it around its codec.
 *
 * Negotiation, seen from inside the messages:
 * - client: adds the extension (`extensions["io.github.mcp-msgpack/native-bytes"]` and 0.1.0's
 *   `experimental["mcp-msgpack/native-bytes"]`, both `{ version: 1 }`: capability.ts) to its initialize request
 *   (MessagePack wire only, or a JSON one offering the stdio wire upgrade) and turns the extension on when
 *   the initialize result carries the key (on MessagePack, or a JSON one accepting the upgrade);
 * - server: when such an initialize request carries the key, adds it to the initialize result (sent on
 *   MessagePack, or accepting the upgrade) and turns the extension on as that result is encoded.
 * A JSON message that offers or accepts the wire upgrade (SPEC.md 7.1) counts as MessagePack for the
 * negotiation only: everything after it is MessagePack, and it carries no media itself.
 *
 * On MCP 2026-07-28 (no initialize), negotiation is per request instead (SPEC.md 8.1, per-request rule):
 * - client: adds the key to the `io.modelcontextprotocol/clientCapabilities` of each request's `_meta`
 *   (MessagePack wire only); the result of that request may carry bin. It sends bin itself only after the
 *   server advertised the extension in a `server/discover` result on MessagePack. On a stdio upgrade accepted
 *   in the answer to a JSON request, which advertises nothing, it learns that from its own `server/discover`
 *   (own-discover.ts, run by the connection through `advertisementProbe`).
 * - server: answers a request that offered it (on MessagePack) with bin, advertises it in its
 *   `server/discover` result on MessagePack, and accepts bin at the media fields of a request that offers it.
 *
 * Sending (toWire), at the media fields only (media-fields.ts): a placeholder from nativeImage() and friends
 * or a Uint8Array becomes bin when negotiated on MessagePack, else base64 (encoded once, here).
 *
 * Receiving (fromWire): bin is accepted only once negotiated (binAllowed) and only at media fields; a bin
 * anywhere else is a 'forbidden-type' payload error. Bin becomes a base64 string, so the SDK's schemas
 * accept it, except in the result of a request sent through the native helpers (callToolNative, ...),
 * which keeps the Uint8Array.
 */
export class NativeBytesAdapter implements MessageAdapter {
  private on = false;
  /** Client: the id of our initialize request. Server: the id of a msgpack initialize that asked for it. */
  private initializeId: string | number | undefined;
  /** Ids of our requests whose results keep bytes. */
  private readonly nativeResultIds = new Set<string | number>();
  /**
   * Of those, the 2026-07-28 ones: SDK v2's Client checks such a result against the spec's schema (base64
   * strings) before the caller's, so their bytes reach it as placeholders the native schemas swap back.
   */
  private readonly placeholderResultIds = new Set<string | number>();
  /** 2026-07-28 requests that offered the extension: their results may be bin (client: ours; server: the peer's). */
  private readonly offeredIds = new Set<string | number>();
  /** The id of a `server/discover` on MessagePack (client: sent; server: received), whose result advertises it. */
  private discoverId: string | number | undefined;
  /** Client: the server advertised the extension in `server/discover`, so our requests may carry bin. */
  private advertised = false;
  private readonly negotiate: boolean;
  /** Whether initialize may confirm it for the whole connection (not on a stateless server). */
  private readonly forSession: boolean;
  private readonly relayBase64: RelayedBase64Options | undefined;
  /** Client: its own server/discover after a stdio upgrade, when the advertisement could not come in the answer. */
  private readonly ownDiscover: OwnDiscover | undefined;

  constructor(
    readonly role: NativeBytesRole,
    options: NativeBytesOptions = {},
    context: { stateless?: boolean } = {},
  ) {
    this.negotiate = options.negotiate ?? true;
    this.forSession = !context.stateless;
    const relay = options.relayBase64Media;
    this.relayBase64 = relay === true ? {} : relay || undefined;
    if (role === 'client' && this.negotiate) this.ownDiscover = new OwnDiscover((message) => this.hasBytes(message));
  }

  /** Client: what a stdio connection runs when the wire upgrade hides the advertisement (own-discover.ts). */
  get advertisementProbe(): AdvertisementProbe | undefined {
    return this.ownDiscover;
  }

  /** Whether the extension is on for this connection. */
  get negotiated(): boolean {
    return this.on;
  }

  /** Whether a bin may arrive at all right now; which message may carry one is decided per message. */
  get binAllowed(): boolean {
    if (this.on) return true;
    return this.role === 'client' ? this.offeredIds.size > 0 : this.negotiate;
  }

  needsMsgpack(message: JSONRPCMessage): boolean {
    // The answer that confirms or advertises the extension does so on MessagePack only (SPEC.md 8.1).
    const record = message as unknown as Record<string, unknown>;
    const id = record.id as string | number | undefined;
    if (this.role === 'server' && id !== undefined && !('method' in record) && (id === this.initializeId || id === this.discoverId)) return true;
    // Client: the offer rides in initialize, or in each 2026-07-28 request, on MessagePack only.
    if (this.role === 'client' && this.negotiate && 'method' in record && 'id' in record && (record.method === 'initialize' || isModern(record.params))) return true;
    // A relayed result whose base64 will leave as bin is only right on MessagePack, like bytes.
    const relaysAsBin = this.relayBase64 !== undefined && (this.on || (this.role === 'server' && id !== undefined && !('method' in record) && this.offeredIds.has(id)));
    return this.hasBytes(message, relaysAsBin);
  }

  /**
   * Whether a message has bytes at its media fields that may go as bin: from nativeImage() & co. or a
   * Uint8Array, and with `anyText` (a relay's base64) any string there.
   */
  private hasBytes(message: JSONRPCMessage, anyText = false): boolean {
    let found = false;
    // Copy-on-write: a mapper that changes nothing walks the media fields and copies nothing.
    mapMediaFields(message, (field) => {
      if (field instanceof Uint8Array || (typeof field === 'string' && (anyText || placeholders.isPlaceholder(field)))) found = true;
      return field;
    });
    return found;
  }

  toWire(message: JSONRPCMessage, wire: WireKind): unknown {
    let out: unknown = message;
    let asBin = this.on;
    const record = message as unknown as Record<string, unknown>;
    const id = record.id as string | number;
    if ('method' in record) {
      if ('id' in record) {
        if (this.role === 'client' && wire === 'msgpack' && this.negotiate && isModern(record.params)) {
          out = offeredIn(record);
          this.offeredIds.add(id);
          if (record.method === 'server/discover') this.discoverId = id;
          asBin = this.advertised;
        } else if (this.role === 'client' && this.negotiate && isModern(record.params) && offersUpgrade(record.params)) {
          // A JSON line: no offer of ours, but its answer may accept the upgrade and then be asked again.
          this.ownDiscover?.noteOffer(id, record.params);
        } else if (this.role === 'client' && record.method === 'initialize' && this.negotiate && isRecord(record.params) && (wire === 'msgpack' || offersUpgrade(record.params))) {
          this.initializeId = id;
          out = { ...record, params: { ...record.params, capabilities: withCapability(record.params.capabilities) } };
        }
        if (isMarkedNative(message)) {
          this.nativeResultIds.add(id);
          if (isModern(record.params)) this.placeholderResultIds.add(id);
        }
      } else if (record.method === 'notifications/cancelled' && isRecord(record.params)) {
        this.nativeResultIds.delete(record.params.requestId as string | number);
        this.placeholderResultIds.delete(record.params.requestId as string | number);
        this.offeredIds.delete(record.params.requestId as string | number);
      }
    } else if (this.role === 'server') {
      // An answer to a 2026-07-28 request that offered the extension: bin, for this answer only.
      if (this.offeredIds.delete(id)) asBin = true;
      if (this.discoverId !== undefined && id === this.discoverId && wire === 'msgpack' && isRecord(record.result)) {
        this.discoverId = undefined;
        out = { ...record, result: { ...record.result, capabilities: withCapability(record.result.capabilities) } };
      } else if (this.initializeId !== undefined && id === this.initializeId && isRecord(record.result) && (wire === 'msgpack' || acceptsUpgrade(record.result))) {
        this.initializeId = undefined;
        out = { ...record, result: { ...record.result, capabilities: withCapability(record.result.capabilities) } };
        // Nothing can arrive that depends on this before the client has read it, so this is in time.
        this.on = true;
        asBin = true;
      }
    }
    return this.sendMedia(out, wire === 'msgpack' && asBin);
  }

  fromWire(value: unknown, wire: WireKind, containsBin: boolean): unknown {
    if (Array.isArray(value)) return value.map((item) => this.fromWireOne(item, wire, containsBin));
    return this.fromWireOne(value, wire, containsBin);
  }

  private fromWireOne(value: unknown, wire: WireKind, containsBin: boolean): unknown {
    if (!isRecord(value)) return value;
    const isResponse = !('method' in value) && ('result' in value || 'error' in value);
    const id = value.id as string | number;
    if (this.negotiate && (wire === 'msgpack' || offersUpgrade(value.params) || (isResponse && acceptsUpgrade(value.result)))) this.noteNegotiation(value, isResponse);
    const keepBytes = isResponse && this.nativeResultIds.delete(id);
    const asPlaceholder = isResponse && this.placeholderResultIds.delete(id);
    // Client: the answer to a request that offered the extension may be bin (this answer only).
    const answersOffer = this.role === 'client' && isResponse && this.offeredIds.delete(id);
    if (!containsBin) return value;
    if (!this.on && !answersOffer && !this.offersInRequest(value, wire)) {
      throw new PayloadError('forbidden-type', 'bin is only allowed once native bytes are negotiated (in initialize, or offered by this 2026-07-28 request itself)', cluesOf(value));
    }

    let atMediaFields = 0;
    const converted = mapMediaFields(value, (field) => {
      if (!(field instanceof Uint8Array)) return field;
      atMediaFields++;
      if (!keepBytes) return bytesToBase64(field);
      return asPlaceholder ? placeholders.register(field) : field;
    });
    // Counted on the original value: the media fields still hold their bins there.
    if (countBins(value) !== atMediaFields) {
      throw new PayloadError('forbidden-type', 'bin outside a media field: native bytes may only stand for image/audio data and resource blobs', cluesOf(value));
    }
    return converted;
  }

  /** Server: a 2026-07-28 request on MessagePack that offers the extension in its own `_meta` may carry bin. */
  private offersInRequest(value: Record<string, unknown>, wire: WireKind): boolean {
    return this.role === 'server' && this.negotiate && wire === 'msgpack' && 'method' in value && 'id' in value && offersExtension(value.params);
  }

  private noteNegotiation(value: Record<string, unknown>, isResponse: boolean): void {
    if (this.role === 'server') {
      if (!('method' in value) || !('id' in value)) return;
      const id = value.id as string | number;
      if (isModern(value.params)) {
        if (offersExtension(value.params)) this.offeredIds.add(id);
        if (value.method === 'server/discover') this.discoverId = id;
      } else if (this.forSession && value.method === 'initialize' && isRecord(value.params) && announcedVersion(value.params.capabilities) !== undefined) {
        this.initializeId = id;
      }
    } else if (isResponse && this.discoverId !== undefined && value.id === this.discoverId) {
      this.discoverId = undefined;
      this.advertised = isRecord(value.result) && announcedVersion(value.result.capabilities) === NATIVE_BYTES_VERSION;
    } else if (isResponse && this.initializeId !== undefined && value.id === this.initializeId) {
      this.initializeId = undefined;
      this.on = isRecord(value.result) && announcedVersion(value.result.capabilities) === NATIVE_BYTES_VERSION;
    }
  }

  /** Swaps placeholders and Uint8Arrays at media fields for bin or base64. */
  private sendMedia(message: unknown, asBin: boolean): unknown {
    let missing: string | undefined;
    const out = mapMediaFields(message, (field) => {
      let bytes: Uint8Array;
      if (field instanceof Uint8Array) bytes = field;
      else if (typeof field === 'string' && placeholders.isPlaceholder(field)) {
        const held = placeholders.take(field);
        if (!held) {
          missing = field;
          return field;
        }
        bytes = held;
      } else if (asBin && this.relayBase64 !== undefined && typeof field === 'string') {
        // Decoded once and sent as bin: nothing of it is carried as text on this leg.
        return relayedBytes(field, this.relayBase64) ?? field;
      } else return field;
      if (asBin) return bytes;
      const text = bytesToBase64(bytes);
      giveBack(bytes); // the text is a copy: pooled bytes can be reused at once
      return text;
    });
    if (missing === undefined) return out;
    const problem =
      `native bytes for placeholder ${missing} are gone: already sent, or dropped after ` + `${placeholders.limits.ttlMs} ms or to stay within ${placeholders.limits.maxBytes} bytes (configureNativeBytes)`;
    const record = message as Record<string, unknown>;
    // A result turns into an error for the same request, so the peer's call ends with the reason.
    if ('result' in record && !('method' in record)) return { jsonrpc: '2.0', id: record.id, error: { code: INTERNAL_ERROR, message: problem } };
    // Our own request or notification: the send fails, and with it the SDK's request() call.
    throw new Error(problem);
  }
}

/** Whether params carry the envelope of a modern revision (2026-07-28 and later: per-request negotiation applies). */
function isModern(params: unknown): boolean {
  const version = envelopeVersion(params);
  return version !== undefined && isModernProtocolVersion(version);
}

/** Whether a request's envelope offers the extension among the client's capabilities. */
function offersExtension(params: unknown): boolean {
  return isModern(params) && announcedVersion(metaOf(params)?.[CLIENT_CAPABILITIES_META_KEY]) !== undefined;
}

/** A request whose envelope's client capabilities also offer the extension (the request itself untouched). */
function offeredIn(request: Record<string, unknown>): Record<string, unknown> {
  const params = request.params as Record<string, unknown>;
  const meta = metaOf(params)!;
  return { ...request, params: { ...params, _meta: { ...meta, [CLIENT_CAPABILITIES_META_KEY]: withCapability(meta[CLIENT_CAPABILITIES_META_KEY]) } } };
}

/**
 * What a transport's `nativeBytes` option turns into. Left out, the adapter does not negotiate but still
 * swaps the placeholders of nativeImage() and friends for base64, so a handler using them never sends a
 * placeholder by mistake; `false` installs nothing at all.
 */
export function adapterFromOption(role: NativeBytesRole, option: boolean | NativeBytesOptions | undefined, context: { stateless?: boolean } = {}): NativeBytesAdapter | undefined {
  if (option === false) return undefined;
  if (option === undefined) return new NativeBytesAdapter(role, { negotiate: false });
  // A stateless server forgets the connection after each request: it must not confirm in initialize
  // (SPEC.md 8.1), but 2026-07-28's per-request negotiation needs no memory.
  return new NativeBytesAdapter(role, option === true ? {} : option, context);
}
