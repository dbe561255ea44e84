import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { diffText, embeddingResult, logText, reviewContext, seriesResult, type ReviewContext } from '../payloads.js';

/**
 * The benchmark's own MCP server: tools whose results have the shapes the venues compare. Payloads are
 * generated once per size and cached, so a call's server cost is the MCP and wire work, not generation.
 */
export function createToolServer(): McpServer {
  const server = new McpServer({ name: 'mcp-msgpack-bench-tools', version: '0.1.0' });
  const texts = new Map<string, string>();
  const contexts = new Map<number, ReviewContext>();

  server.registerTool(
    'text_result',
    {
      description: 'Returns diff- or log-like text of the given size (text-heavy venue).',
      inputSchema: {
        kind: z.enum(['diff', 'log']),
        bytes: z
          .number()
          .int()
          .positive()
          .max(64 * 1024 * 1024),
      },
    },
    async ({ kind, bytes }) => {
      const key = `${kind}:${bytes}`;
      let text = texts.get(key);
      if (text === undefined) {
        text = kind === 'diff' ? diffText(bytes) : logText(bytes);
        texts.set(key, text);
      }
      return { content: [{ type: 'text', text }] };
    },
  );

  server.registerTool(
    'review_context',
    {
      description: 'Returns a deterministic code-review context as structuredContent (object-heavy venue).',
      inputSchema: {
        bytes: z
          .number()
          .int()
          .positive()
          .max(64 * 1024 * 1024),
      },
    },
    async ({ bytes }) => {
      let context = contexts.get(bytes);
      if (context === undefined) {
        context = reviewContext(bytes);
        contexts.set(bytes, context);
      }
      return {
        content: [{ type: 'text', text: `review ${context.review.id}: ${context.metadata.fileCount} files` }],
        structuredContent: context as unknown as Record<string, unknown>,
      };
    },
  );

  const numeric = new Map<string, Record<string, unknown>>();
  server.registerTool(
    'numeric_result',
    {
      description: 'Returns an embedding (1,536 floats and 1,536 integers) or a 100,000-point series as structuredContent (numeric venue).',
      inputSchema: { kind: z.enum(['embedding', 'series']) },
    },
    async ({ kind }) => {
      let value = numeric.get(kind);
      if (value === undefined) {
        value = (kind === 'embedding' ? embeddingResult() : seriesResult()) as unknown as Record<string, unknown>;
        numeric.set(kind, value);
      }
      return { content: [{ type: 'text', text: `${kind} result` }], structuredContent: value };
    },
  );

  server.registerTool(
    'small',
    {
      description: 'A small call: echoes a counter (small-calls venue).',
      inputSchema: { n: z.number().int(), tag: z.string().max(200) },
    },
    async ({ n, tag }) => ({ content: [{ type: 'text', text: `ok ${tag} ${n}` }] }),
  );

  return server;
}
