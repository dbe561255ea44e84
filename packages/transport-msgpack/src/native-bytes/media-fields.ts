import { isRecord } from '../jsonrpc/is-record.js';

/**
 * The places where MCP's schema has a base64 string, and so where native bytes may stand (SPEC.md,
 * "Native bytes extension"): image and audio `data`, and `blob` of resource contents, as they appear in
 *   - any result's `content` (one block or an array: tool results, sampling results),
 *   - any result's `contents[]` (resources/read),
 *   - any result's `messages[].content` (prompts/get),
 *   - a sampling/createMessage request's `params.messages[].content` (one block or an array),
 *   - 2026-07-28's multi-round-trip fields: the sampling requests embedded in a result's
 *     `inputRequests.*` (`params.messages[].content`) and the sampling results embedded in a request's
 *     `params.inputResponses.*` (`content`),
 * including the `content[]` of a sampling `tool_result` block. Only these paths are visited: the rest of
 * a message (structuredContent, arguments, ...) is never walked.
 *
 * mapMediaFields is copy-on-write: a message with nothing to change comes back as the same object, and
 * a changed one shares everything but the path to the changed fields (the SDK's objects are never
 * modified).
 */

/** Receives a value found at a media field and returns its replacement (or the same value). */
export type MediaFieldMapper = (value: unknown) => unknown;

export function mapMediaFields(message: unknown, map: MediaFieldMapper): unknown {
  if (!isRecord(message)) return message;
  if (isRecord(message.result)) return withField(message, 'result', mapResult(message.result, map));
  if (!isRecord(message.params)) return message;
  if (message.method === 'sampling/createMessage') return withField(message, 'params', mapSamplingParams(message.params, map));
  if (isRecord(message.params.inputResponses)) {
    const responses = mapValues(message.params.inputResponses, (response) => (isRecord(response) && 'content' in response ? withField(response, 'content', mapBlocks(response.content, map, true)) : response));
    return withField(message, 'params', withField(message.params, 'inputResponses', responses));
  }
  return message;
}

function mapSamplingParams(params: Record<string, unknown>, map: MediaFieldMapper): Record<string, unknown> {
  return withField(params, 'messages', mapMessages(params.messages, map));
}

/** The requests an input_required result embeds: only sampling requests carry media. */
function mapInputRequests(requests: unknown, map: MediaFieldMapper): unknown {
  if (!isRecord(requests)) return requests;
  return mapValues(requests, (request) =>
    isRecord(request) && request.method === 'sampling/createMessage' && isRecord(request.params) ? withField(request, 'params', mapSamplingParams(request.params, map)) : request,
  );
}

function mapValues(record: Record<string, unknown>, mapValue: (value: unknown) => unknown): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const value = record[key];
    const mapped = mapValue(value);
    if (mapped !== value) {
      out ??= { ...record };
      out[key] = mapped;
    }
  }
  return out ?? record;
}

function mapResult(result: Record<string, unknown>, map: MediaFieldMapper): Record<string, unknown> {
  let out = result;
  if ('content' in out) out = withField(out, 'content', mapBlocks(out.content, map, true));
  if ('contents' in out)
    out = withField(
      out,
      'contents',
      mapArray(out.contents, (c) => mapField(c, 'blob', map)),
    );
  if ('messages' in out) out = withField(out, 'messages', mapMessages(out.messages, map));
  if ('inputRequests' in out) out = withField(out, 'inputRequests', mapInputRequests(out.inputRequests, map));
  return out;
}

function mapMessages(messages: unknown, map: MediaFieldMapper): unknown {
  return mapArray(messages, (m) => (isRecord(m) ? withField(m, 'content', mapBlocks(m.content, map, true)) : m));
}

/** One content block or an array of them; `nested` allows one level of tool_result content. */
function mapBlocks(content: unknown, map: MediaFieldMapper, nested: boolean): unknown {
  if (Array.isArray(content)) return mapArray(content, (block) => mapBlock(block, map, nested));
  return mapBlock(content, map, nested);
}

function mapBlock(block: unknown, map: MediaFieldMapper, nested: boolean): unknown {
  if (!isRecord(block)) return block;
  switch (block.type) {
    case 'image':
    case 'audio':
      return mapField(block, 'data', map);
    case 'resource':
      return isRecord(block.resource) ? withField(block, 'resource', mapField(block.resource, 'blob', map)) : block;
    case 'tool_result':
      return nested && Array.isArray(block.content) ? withField(block, 'content', mapBlocks(block.content, map, false)) : block;
    default:
      return block;
  }
}

function mapField(record: unknown, key: string, map: MediaFieldMapper): unknown {
  if (!isRecord(record) || !(key in record)) return record;
  return withField(record, key, map(record[key]));
}

function mapArray(items: unknown, mapItem: (item: unknown) => unknown): unknown {
  if (!Array.isArray(items)) return items;
  let out: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const mapped = mapItem(item);
    if (mapped !== item) {
      out ??= items.slice();
      out[i] = mapped;
    }
  }
  return out ?? items;
}

function withField<T extends Record<string, unknown>>(record: T, key: string, value: unknown): T {
  return record[key] === value ? record : { ...record, [key]: value };
}

/** How many Uint8Arrays (decoded bins) a value holds anywhere; iterative, so depth is no risk. */
export function countBins(value: unknown): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== 'object' || item === null) continue;
    if (item instanceof Uint8Array) count++;
    else if (Array.isArray(item)) for (const child of item) stack.push(child);
    else for (const key in item) stack.push((item as Record<string, unknown>)[key]);
  }
  return count;
}
