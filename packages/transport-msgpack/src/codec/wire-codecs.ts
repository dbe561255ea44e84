import { JsonMessageCodec } from './json-codec.js';
import type { CodecOptions, WireCodecs } from './message-codec.js';
import { MsgpackMessageCodec } from './msgpack-codec.js';

/** Both wires' codecs for one connection, sharing its adapter (so a negotiated extension spans both). */
export function createWireCodecs(options: CodecOptions = {}): { msgpack: MsgpackMessageCodec; json: JsonMessageCodec } & WireCodecs {
  return { msgpack: new MsgpackMessageCodec(options), json: new JsonMessageCodec(options) };
}
