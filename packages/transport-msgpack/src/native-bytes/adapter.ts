import type { JSONRPCMessage } from '../mcp/types.js';
import { cluesOf, type MessageAdapter, type WireKind } from '../codec/message-codec.js';
import { PayloadError } from '../wire/errors.js';
import { bytesToBase64 } from './base64.js';
import { NATIVE_BYTES_VERSION, announcedVersion, isRecord, withCapability } from './capability.js';
import { countBins, mapMediaFields } from './media-fields.js';
import { giveBack } from './lent-bytes.js';
import { isMarkedNative } from './native-requests.js';
import { placeholders } from './registry.js';

export type NativeBytesRole = 'client' | 'server';

export interface NativeBytesOptions {
  /**
   * Offer (client) or confirm (server) the extension. Default true. With false the adapter still swaps
   * placeholders from nativeImage() and friends for base64, so handlers using them keep working.
   */
  negotiate?: boolean;
}

/** JSON-RPC "internal error", for a result whose native bytes were dropped before it could be sent. */
const INTERNAL_ERROR = -32603;

/**
 * The native-bytes extension on one connection (SPEC.md, "Native bytes extension"); a transport creates
 * one per connection (per session over HTTP) and calls it around its codec.
 *
 * Negotiation, seen from inside the messages:
 * - client: adds `experimental["mcp-msgpack/native-bytes"] = { version: 1 }` to its initialize request
 *   (MessagePack wire only) and turns the extension on when the initialize result carries the key;
 * - server: when an initialize request on the MessagePack wire carries the key, adds it to the initialize
 *   result and turns the extension on as that result is encoded.
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
  private readonly negotiate: boolean;

  constructor(
    readonly role: NativeBytesRole,
    options: NativeBytesOptions = {},
  ) {
    this.negotiate = options.negotiate ?? true;
  }

  /** Whether the extension is on for this connection. */
  get negotiated(): boolean {
    return this.on;
  }

  get binAllowed(): boolean {
    return this.on;
  }

  toWire(message: JSONRPCMessage, wire: WireKind): unknown {
    let out: unknown = message;
    const record = message as unknown as Record<string, unknown>;
    if ('method' in record) {
      if ('id' in record) {
        if (this.role === 'client' && record.method === 'initialize' && wire === 'msgpack' && this.negotiate && isRecord(record.params)) {
          this.initializeId = record.id as string | number;
          out = { ...record, params: { ...record.params, capabilities: withCapability(record.params.capabilities) } };
        }
        if (isMarkedNative(message)) this.nativeResultIds.add(record.id as string | number);
      } else if (record.method === 'notifications/cancelled' && isRecord(record.params)) {
        this.nativeResultIds.delete(record.params.requestId as string | number);
      }
    } else if (this.role === 'server' && this.initializeId !== undefined && record.id === this.initializeId && wire === 'msgpack' && isRecord(record.result)) {
      this.initializeId = undefined;
      out = { ...record, result: { ...record.result, capabilities: withCapability(record.result.capabilities) } };
      // Nothing can arrive that depends on this before the client has read it, so this is in time.
      this.on = true;
    }
    return this.sendMedia(out, wire === 'msgpack' && this.on);
  }

  fromWire(value: unknown, wire: WireKind, containsBin: boolean): unknown {
    if (Array.isArray(value)) return value.map((item) => this.fromWireOne(item, wire, containsBin));
    return this.fromWireOne(value, wire, containsBin);
  }

  private fromWireOne(value: unknown, wire: WireKind, containsBin: boolean): unknown {
    if (!isRecord(value)) return value;
    const isResponse = !('method' in value) && ('result' in value || 'error' in value);
    const id = value.id as string | number;
    if (this.negotiate && wire === 'msgpack') this.noteNegotiation(value, isResponse);
    const keepBytes = isResponse && this.nativeResultIds.delete(id);
    if (!containsBin) return value;

    let atMediaFields = 0;
    const converted = mapMediaFields(value, (field) => {
      if (!(field instanceof Uint8Array)) return field;
      atMediaFields++;
      return keepBytes ? field : bytesToBase64(field);
    });
    // Counted on the original value: the media fields still hold their bins there.
    if (countBins(value) !== atMediaFields) {
      throw new PayloadError('forbidden-type', 'bin outside a media field: native bytes may only stand for image/audio data and resource blobs', cluesOf(value));
    }
    return converted;
  }

  private noteNegotiation(value: Record<string, unknown>, isResponse: boolean): void {
    if (this.role === 'server') {
      if (value.method === 'initialize' && 'id' in value && isRecord(value.params) && announcedVersion(value.params.capabilities) !== undefined) {
        this.initializeId = value.id as string | number;
      }
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
      } else return field;
      if (asBin) return bytes;
      const text = bytesToBase64(bytes);
      giveBack(bytes); // the text is a copy: pooled bytes can be reused at once
      return text;
    });
    if (missing === undefined) return out;
    const problem =
      `native bytes for placeholder ${missing} are gone: already sent, or dropped after ` +
      `${placeholders.limits.ttlMs} ms or to stay within ${placeholders.limits.maxBytes} bytes (configureNativeBytes)`;
    const record = message as Record<string, unknown>;
    // A result turns into an error for the same request, so the peer's call ends with the reason.
    if ('result' in record && !('method' in record)) return { jsonrpc: '2.0', id: record.id, error: { code: INTERNAL_ERROR, message: problem } };
    // Our own request or notification: the send fails, and with it the SDK's request() call.
    throw new Error(problem);
  }
}

/** For transports that make one adapter per connection or session (the HTTP transports' adapterFactory). */
export function nativeBytesAdapterFactory(role: NativeBytesRole, options: NativeBytesOptions = {}): () => NativeBytesAdapter {
  return () => new NativeBytesAdapter(role, options);
}

/**
 * What a transport's `nativeBytes` option turns into. Left out, the adapter does not negotiate but still
 * swaps the placeholders of nativeImage() and friends for base64, so a handler using them never sends a
 * placeholder by mistake; `false` installs nothing at all.
 */
export function adapterFromOption(
  role: NativeBytesRole,
  option: boolean | NativeBytesOptions | undefined,
  context: { stateless?: boolean } = {},
): NativeBytesAdapter | undefined {
  if (option === false) return undefined;
  // A stateless server forgets the connection after each request, so it must not confirm (SPEC.md 8.1).
  if (option === undefined || context.stateless) return new NativeBytesAdapter(role, { negotiate: false });
  return new NativeBytesAdapter(role, option === true ? {} : option);
}
