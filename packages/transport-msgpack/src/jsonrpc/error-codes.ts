/**
 * The JSON-RPC error codes this package sends or reads, defined once. The first five are JSON-RPC 2.0's own;
 * the rest are MCP's (the SDKs use the same numbers), each named as the SDKs and the spec name it.
 */

/** The bytes are not a message: unreadable JSON or MessagePack. */
export const PARSE_ERROR = -32700;
/** A readable value that is not a valid JSON-RPC request (or one the server refuses as such). */
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

/** The SDKs' generic transport-level error (their `ErrorCode.ConnectionClosed`): HTTP refusals without a more precise code. */
export const TRANSPORT_ERROR = -32000;
/** A request for a session the server does not have (closed, expired, or never made). */
export const SESSION_NOT_FOUND = -32001;
/** 2026-07-28 (SEP-2243): a standard or `Mcp-Param-*` header that disagrees with (or is missing for) the body. */
export const HEADER_MISMATCH = -32020;
/** 2026-07-28: the request needs a client capability it did not declare. */
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
/** 2026-07-28: a protocol revision the server does not serve; the error's data lists those it does. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
