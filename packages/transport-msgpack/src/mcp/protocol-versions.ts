/**
 * MCP revisions the HTTP server transport accepts in `MCP-Protocol-Version` until the server it serves says
 * otherwise (SDK v2's Server calls setSupportedProtocolVersions()); the same list SDK v1 1.32 checks.
 */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [LATEST_PROTOCOL_VERSION, '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
/** The revision assumed for a request without `MCP-Protocol-Version` (the spec's backwards-compatibility rule). */
export const DEFAULT_NEGOTIATED_PROTOCOL_VERSION = '2025-03-26';
