import type { JSONRPCMessage, RequestId } from '../mcp/types.js';
import { INTERNAL_ERROR } from '../jsonrpc/error-codes.js';
import { runtime } from '../runtime/current.js';

const MiB = 1024 * 1024;

/**
 * What the MCP SDKs' stdio transports (TypeScript, v1 and v2: `STDIO_DEFAULT_MAX_BUFFER_SIZE`) hold of unread
 * input: a line longer than this throws in their reader, and the host drops the whole connection ("ReadBuffer
 * exceeded maximum size", then "Not connected" for every later call).
 */
export const STOCK_STDIO_LINE_CAP = 10 * MiB;

/**
 * The longest JSON line a stdio server sends a JSON client by default: the stock cap less one pipe read
 * (64 KiB), since the start of the next line can arrive in the same read and count against the same buffer.
 */
export const DEFAULT_MAX_JSON_LINE_BYTES = STOCK_STDIO_LINE_CAP - 64 * 1024;

/** A message that was not sent because its JSON line is over the peer's limit (the answer sent instead says why). */
export class JsonLineLimitError extends Error {
  override readonly name = 'JsonLineLimitError';
}

/**
 * A line checked against `maxBytes`: the line to write when it fits (the string itself, or where the runtime
 * counts by encoding, its UTF-8 bytes made here once instead of by the stream), or its byte count when it
 * does not.
 */
export function measuredLine(line: string, maxBytes: number): string | Uint8Array | number {
  // UTF-8 takes 1 to 3 bytes per UTF-16 unit: only a line between the two bounds needs counting.
  if (line.length * 3 <= maxBytes) return line;
  if (line.length > maxBytes) return line.length;
  if (!runtime.measuresLinesByEncoding) {
    const count = Buffer.byteLength(line, 'utf8');
    return count > maxBytes ? count : line;
  }
  const bytes = Buffer.from(line, 'utf8');
  return bytes.length > maxBytes ? bytes.length : bytes;
}

export function formatMiB(bytes: number): string {
  return `${(bytes / MiB).toFixed(2)} MiB`;
}

/** Why a reply of `bytes` was not sent, in the words the client (and the stderr line) get. */
export function lineLimitText(bytes: number, maxBytes: number): string {
  return (
    `the reply is ${formatMiB(bytes)} as one JSON line, over the ${formatMiB(maxBytes)} a stdio JSON client reads ` +
    `(the MCP SDKs' stdio clients drop the whole connection past ${formatMiB(STOCK_STDIO_LINE_CAP)}), so it was not sent; ` +
    'ask for less (a resource_link, a smaller file or range), or use a MessagePack client, which has no such limit'
  );
}

/**
 * What a client gets instead of an answer too long for its line limit: for tools/call a tool error (the model
 * can read it and try otherwise), for anything else a JSON-RPC error. Undefined for what is not an answer.
 */
export function oversizeAnswer(message: JSONRPCMessage, method: string | undefined, text: string): JSONRPCMessage | undefined {
  const record = message as unknown as { id?: RequestId; method?: unknown; result?: Record<string, unknown> };
  if (record.method !== undefined || record.id === undefined) return undefined;
  if (method === 'tools/call' && record.result) {
    // A 2026-07-28 result keeps its envelope fields; only the content is replaced.
    const { _meta, resultType } = record.result;
    const kept = { ...(_meta === undefined ? {} : { _meta }), ...(resultType === undefined ? {} : { resultType }) };
    return { jsonrpc: '2.0', id: record.id, result: { ...kept, content: [{ type: 'text', text }], isError: true } } as JSONRPCMessage;
  }
  return { jsonrpc: '2.0', id: record.id, error: { code: INTERNAL_ERROR, message: text } } as JSONRPCMessage;
}
