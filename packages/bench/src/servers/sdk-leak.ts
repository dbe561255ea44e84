/**
 * The SDK's Streamable HTTP server transport (v1.x, up to at least 1.32.2) in JSON-response mode keeps one
 * `_streamMapping` entry per POST for the whole session: send() resolves the reply but never runs the
 * entry's cleanup (modelcontextprotocol/typescript-sdk#2559; fixed on the SDK's main branch, a v1.x fix is
 * open as #2747). Each entry holds the resolved reply, so a session of 1 MB replies grows by about 1 MiB
 * a call, and its garbage is never collected: measured on object-1MB over HTTP, the leaking server used
 * 0.78x the CPU per call of the same server with the fix (collection deferred, not saved) while its RSS
 * grew without bound.
 *
 * The benchmark compares steady states, so by default it releases finished entries after each request,
 * exactly as the SDK's fix does (`--sdk-as-published` turns this off and measures the leak instead).
 * This reaches into private fields: if they are not there (a fixed or reworked SDK), it does nothing.
 */
interface StreamEntry {
  resolveJson?: unknown;
  cleanup?: () => void;
}

interface LeakyInternals {
  _enableJsonResponse?: boolean;
  _streamMapping?: Map<string, StreamEntry>;
  _requestToStreamMapping?: Map<string | number, string>;
}

/** The web-standard transport inside the SDK's node:http one, or the transport itself. */
function internalsOf(transport: object): LeakyInternals {
  const inner = (transport as { _webStandardTransport?: object })._webStandardTransport;
  return (inner ?? transport) as LeakyInternals;
}

/** Runs cleanup() for every JSON-mode entry whose requests have all been answered (none still mapped to it). */
export function releaseAnsweredJsonStreams(transport: object): void {
  const internals = internalsOf(transport);
  if (!internals._enableJsonResponse || !(internals._streamMapping instanceof Map) || !(internals._requestToStreamMapping instanceof Map)) return;
  const pending = new Set(internals._requestToStreamMapping.values());
  for (const [streamId, entry] of [...internals._streamMapping]) {
    if (entry.resolveJson !== undefined && !pending.has(streamId)) entry.cleanup?.();
  }
}

/** Whether to leave the SDK's leak in place (`--sdk-as-published`, passed to the server child). */
export function sdkAsPublished(): boolean {
  return process.env.MCP_MSGPACK_BENCH_SDK_AS_PUBLISHED === '1';
}
