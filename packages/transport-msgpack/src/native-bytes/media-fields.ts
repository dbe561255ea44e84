import { isRecord } from './capability.js';

/**
 * The places where MCP's schema has a base64 string, and so where native bytes may stand (SPEC.md,
 * "Native bytes extension"): image and audio `data`, and `blob` of resource contents, as they appear in
 *   - any result's `content` (one block or an array: tool results, sampling results),
 *   - any result's `contents[]` (resources/read),
 *   - any result's `messages[].content` (prompts/get),
 *   - a sampling/createMessage request's `params.messages[].content` (one block or an array),
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
  if (message.method === 'sampling/createMessage' && isRecord(message.params)) {
    return withField(message, 'params', withField(message.params, 'messages', mapMessages(message.params.messages, map)));
  }
  return message;
}

function mapResult(result: Record<string, unknown>, map: MediaFieldMapper): Record<string, unknown> {
  let out = result;
  if ('content' in out) out = withField(out, 'content', mapBlocks(out.content, map, true));
  if ('contents' in out) out = withField(out, 'contents', mapArray(out.contents, (c) => mapField(c, 'blob', map)));
  if ('messages' in out) out = withField(out, 'messages', mapMessages(out.messages, map));
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
