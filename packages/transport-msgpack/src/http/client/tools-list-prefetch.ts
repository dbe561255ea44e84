import { isJSONRPCRequest, isJSONRPCResultResponse } from '../../jsonrpc/kinds.js';
import { envelopeVersion, isModernProtocolVersion, metaOf } from '../../jsonrpc/envelope.js';
import { isRecord } from '../../jsonrpc/is-record.js';
import type { JSONRPCMessage, JSONRPCRequest, TransportSendOptions } from '../../mcp/types.js';

/** The id of the transport's own tools/list: a string, where the SDKs number their requests. */
export const PREFETCH_ID = 'mcp-msgpack/tools-list';

/**
 * How long after it was sent the kept result may answer the SDK's tools/list. A host lists tools right after
 * connect() returns, one round trip (the discover's) after the prefetch left; past this the list may have
 * changed on the server since, and the SDK asks itself.
 */
export const PREFETCH_FRESH_MS = 10_000;

/** Posts the prefetch like any request and gives back every message of its answer, or nothing on any failure. */
export type PrefetchPost = (request: JSONRPCRequest, signal: AbortSignal) => Promise<JSONRPCMessage[] | undefined>;

type Kept = Record<string, unknown> | undefined;

/**
 * The client's one-round-trip opening on 2026-07-28 (README, "Tools list prefetch"). SDK v2's Client connects
 * with `server/discover`, and the host's first call is nearly always listTools(); on the stateless revision
 * tools/list needs nothing from the discover (no session, the envelope rides on the request), so the transport
 * posts a tools/list of its own, with the discover's envelope, beside it. Its result is kept for the SDK's
 * first tools/list without a cursor whose envelope is the same, which is answered from it under the SDK's id
 * (or waits for it when it is still on the way) without going to the network. Used once, and only while fresh.
 *
 * A speculation: any failure (an error reply, a 4xx/5xx, a server that is 2025-era or JSON-only, a network
 * error, an answer that is anything but one result) drops it silently and the SDK's tools/list goes out as
 * it would have. The server sees an ordinary request; the SDK sees the result the server gave for it.
 */
export class ToolsListPrefetch {
  /** Whether a request has gone out yet: only the first, the SDK's discover, starts a prefetch. */
  private sawRequest = false;
  private envelope: Record<string, unknown> | undefined;
  private kept: Promise<Kept> | undefined;
  private readonly abort = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly enabled: boolean,
    private readonly post: PrefetchPost,
    private readonly freshMs = PREFETCH_FRESH_MS,
  ) {}

  /**
   * Sees each message the SDK sends, before it goes: after SDK v2's discover as the first request, the
   * prefetch to post beside it (through `start()`); an initialize (a 2025-era connection) drops it.
   */
  prefetchFor(message: JSONRPCMessage | JSONRPCMessage[]): JSONRPCRequest | undefined {
    if (Array.isArray(message) || !isJSONRPCRequest(message)) return undefined;
    if (message.method === 'initialize') this.drop();
    if (this.sawRequest) return undefined;
    this.sawRequest = true;
    const version = envelopeVersion(message.params);
    if (!this.enabled || message.method !== 'server/discover' || version === undefined || !isModernProtocolVersion(version)) return undefined;
    this.envelope = metaOf(message.params);
    return { jsonrpc: '2.0', id: PREFETCH_ID, method: 'tools/list', params: { _meta: this.envelope } } as JSONRPCRequest;
  }

  /** Posts the request prefetchFor() gave, and keeps its result until it is used, stale or dropped. */
  start(request: JSONRPCRequest): void {
    this.kept = this.post(request, this.abort.signal).then(resultOf, () => undefined);
    this.timer = setTimeout(() => this.drop(), this.freshMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  /**
   * The answer to the SDK's `message` from the kept result, when it is the first tools/list without a cursor,
   * with the prefetch's envelope: a promise of the response under the SDK's id, or of undefined when the
   * prefetch failed (the SDK's request then goes out). Undefined for any other message.
   */
  answer(message: JSONRPCMessage | JSONRPCMessage[], options: TransportSendOptions | undefined): Promise<JSONRPCMessage | undefined> | undefined {
    const kept = this.kept;
    if (kept === undefined || Array.isArray(message) || !isJSONRPCRequest(message) || message.method !== 'tools/list') return undefined;
    if (options?.resumptionToken !== undefined || Object.keys(options?.headers ?? {}).length > 0) return undefined;
    if (!isRecord(message.params) || Object.keys(message.params).some((key) => key !== '_meta') || !sameJson(metaOf(message.params), this.envelope)) return undefined;
    this.kept = undefined;
    clearTimeout(this.timer);
    const id = message.id;
    return untilAborted(kept, options?.requestSignal).then((result) => (result === undefined ? undefined : ({ jsonrpc: '2.0', id, result } as JSONRPCMessage)));
  }

  /** Stale, a 2025-era connection, the tool list changed, or close(): the kept result goes, a prefetch in flight is aborted. */
  drop(): void {
    clearTimeout(this.timer);
    this.kept = undefined;
    this.abort.abort();
  }
}

/** The result of the prefetch's answer: exactly one message, a result for its id. */
function resultOf(messages: JSONRPCMessage[] | undefined): Kept {
  if (messages?.length !== 1) return undefined;
  const [message] = messages;
  return isJSONRPCResultResponse(message) && message.id === PREFETCH_ID && isRecord(message.result) ? message.result : undefined;
}

/** `settling`, or a rejection with the signal's reason once the caller aborts, as the SDK's own request would end. */
function untilAborted<T>(settling: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return settling;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    void settling.then((value) => {
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    });
  });
}

/** Whether two decoded values are the same JSON value (the envelopes the SDK builds per request). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  if (!isRecord(a) || !isRecord(b) || Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => key in b && sameJson(a[key], b[key]));
}
