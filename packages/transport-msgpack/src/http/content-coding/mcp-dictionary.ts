import { CanonicalEncoder } from '../../wire/encoder.js';

/**
 * The MCP dictionary coding (SPEC 10.5): raw deflate with a preset dictionary of MCP message skeletons, for
 * one-body replies too small for a coding of their own to pay. Named by its own content-coding token, which
 * a client offers in Accept-Encoding: the dictionary's version is in the token, so nothing else is said per
 * message (RFC 9842's `dcz` and `Available-Dictionary` cost about 90 bytes an exchange, more than the
 * dictionary saves on a reply of a few hundred bytes: docs/MEASUREMENTS.md).
 */
export const MCP_DICTIONARY_CODING = 'mcp-dict-v1';

/** Replies under this many bytes may go in the dictionary coding; larger ones code well without it. */
export const DICTIONARY_MAX_BYTES = 4096;

/**
 * Replies from this size go in the dictionary coding: a 157-byte reply codes to about 50, where the token's
 * `Content-Encoding` header costs 31.
 */
export const DICTIONARY_MIN_BYTES = 96;

/**
 * Version 1's bytes, also in fixtures/dictionary/mcp-dictionary-v1.bin (the test holds them equal), which
 * another implementation reads: words of the filesystem tools and MCP's vocabulary, then the message
 * skeletons as JSON text (for the JSON wire), then the same skeletons in their canonical MessagePack encoding
 * (the MessagePack wire; last, as deflate codes the nearest matches shortest). Written by hand from MCP's
 * message shapes, nothing taken from the recorded corpora the benchmark measures it on. Never change these
 * bytes: a new dictionary is a new token.
 */
const WORDS = '[FILE] [DIR] size: created: modified: accessed: isDirectory: isFile: permissions: .json .ts .md .js README package.json src test';

const SKELETONS: readonly object[] = [
  {
    jsonrpc: '2.0',
    id: 1,
    result: {
      protocolVersion: '2025-11-25',
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, logging: {} },
      serverInfo: { name: 'server', version: '1.0.0' },
      instructions: '',
    },
  },
  { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '' }], structuredContent: { content: '' }, isError: false } },
  {
    jsonrpc: '2.0',
    id: 3,
    result: {
      tools: [
        {
          name: '',
          title: '',
          description: '',
          inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false, $schema: 'http://json-schema.org/draft-07/schema#' },
          annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
          outputSchema: { type: 'object' },
        },
      ],
      nextCursor: '',
    },
  },
  { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1, total: 2, message: '' } },
  { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'Invalid params', data: {} } },
  {
    jsonrpc: '2.0',
    id: 5,
    result: {
      content: [
        { type: 'image', data: '', mimeType: 'image/png' },
        { type: 'resource_link', uri: 'file:///', name: '', mimeType: 'text/plain' },
        { type: 'resource', resource: { uri: 'file:///', mimeType: 'text/plain', text: '' } },
      ],
    },
  },
];

let dictionary: Uint8Array | undefined;

/** The dictionary's bytes, built once on first use. */
export function mcpDictionaryV1(): Uint8Array {
  if (dictionary) return dictionary;
  const text = new TextEncoder();
  const encoder = new CanonicalEncoder();
  const parts = [text.encode(`${WORDS}\n${SKELETONS.map((skeleton) => JSON.stringify(skeleton)).join('\n')}\n`), ...SKELETONS.map((skeleton) => Uint8Array.from(encoder.encode(skeleton)))];
  const bytes = new Uint8Array(parts.reduce((total, part) => total + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  dictionary = bytes;
  return bytes;
}
