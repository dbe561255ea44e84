/** The name of this wire, as SPEC.md defines it. */
export const WIRE_NAME = 'msgpack-v1';

/** Media type of a MessagePack request or response body (one MessagePack value, no frame header). */
export const MSGPACK_MEDIA_TYPE = 'application/msgpack';

/** Bytes in the big-endian length prefix in front of every frame. */
export const FRAME_HEADER_BYTES = 4;

/** Largest payload a receiver accepts unless configured otherwise: 64 MiB. */
export const DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024;

/** Largest payload the 4-byte header can describe. */
export const MAX_FRAME_BYTES_LIMIT = 0xffff_ffff;

/** Deepest nesting of arrays and maps a decoder accepts unless configured otherwise. */
export const DEFAULT_MAX_DEPTH = 128;
