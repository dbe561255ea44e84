import { JsonMessageCodec } from './json-codec.js';
import type { CodecOptions, WireCodecs } from './message-codec.js';
import { MsgpackMessageCodec } from './msgpack-codec.js';

/** Both wires' codecs, indexed by wire, each also reachable with its own type (framing differs by wire). */
export interface TypedWireCodecs extends WireCodecs {
  readonly msgpack: MsgpackMessageCodec;
  readonly json: JsonMessageCodec;
}

/** Both wires' codecs for one connection, sharing its adapter (so a negotiated extension spans both). */
export function createWireCodecs(options: CodecOptions = {}): TypedWireCodecs {
  return { msgpack: new MsgpackMessageCodec(options), json: new JsonMessageCodec(options) };
}
