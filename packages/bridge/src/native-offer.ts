import { NATIVE_BYTES_CAPABILITY, NATIVE_BYTES_EXTENSION, type JSONRPCMessage } from 'mcp-msgpack-transport';
import { isRecord } from 'mcp-msgpack-transport/wire';

/** Where a 2026-07-28 request carries its client's capabilities (no initialize on that revision). */
const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';

type Params = Record<string, unknown>;

/**
 * A client's message as the JSON child should see it: without the native-bytes offer, in `initialize`'s
 * capabilities or a 2026-07-28 request's envelope. The bridge's HTTP endpoint negotiates native bytes with the
 * client itself and turns the child's base64 into bin; the child only ever speaks JSON with base64, and a
 * child that validates capabilities strictly must not meet a key it cannot honour. Copy-on-write: a message
 * without the offer comes back as the same object.
 */
export function withoutNativeBytesOffer(message: JSONRPCMessage): JSONRPCMessage {
  const record = message as unknown as Params;
  if (typeof record.method !== 'string' || !isRecord(record.params)) return message;
  const params = record.params;
  if (record.method === 'initialize' && isRecord(params.capabilities)) {
    const capabilities = withoutNativeBytes(params.capabilities);
    return capabilities === params.capabilities ? message : ({ ...record, params: { ...params, capabilities } } as unknown as JSONRPCMessage);
  }
  const meta = params._meta;
  if (!isRecord(meta) || !isRecord(meta[CLIENT_CAPABILITIES_META_KEY])) return message;
  const capabilities = withoutNativeBytes(meta[CLIENT_CAPABILITIES_META_KEY]);
  if (capabilities === meta[CLIENT_CAPABILITIES_META_KEY]) return message;
  return { ...record, params: { ...params, _meta: { ...meta, [CLIENT_CAPABILITIES_META_KEY]: capabilities } } } as unknown as JSONRPCMessage;
}

/**
 * Capabilities without the native-bytes extension's two keys (`extensions` and 0.1.0's `experimental`); a
 * table left empty by that is dropped with them. The same object when neither key is there.
 */
export function withoutNativeBytes(capabilities: Params): Params {
  let out = capabilities;
  for (const [table, key] of [
    ['extensions', NATIVE_BYTES_EXTENSION],
    ['experimental', NATIVE_BYTES_CAPABILITY],
  ] as const) {
    const entries = out[table];
    if (!isRecord(entries) || !(key in entries)) continue;
    const { [key]: _offer, ...rest } = entries;
    out = { ...out };
    if (Object.keys(rest).length > 0) out[table] = rest;
    else delete out[table];
  }
  return out;
}
