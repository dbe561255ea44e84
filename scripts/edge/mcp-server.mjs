// The MCP server every edge check serves: an SDK v2 McpServer with a text tool and an image tool whose bytes
// go out as native bytes (MessagePack bin) to a client that negotiates them, as base64 to any other.
// Runtime-neutral: bundled into a Worker, run by Deno, served by Node for the browser.
import { McpServer } from '@modelcontextprotocol/server';
import { nativeImage } from 'mcp-msgpack-transport';
import { z } from 'zod';
import { imageBytes } from './image.mjs';

export function createServer() {
  const server = new McpServer({ name: 'edge-server', version: '1.0.0' });
  server.registerTool('echo', { description: 'Says the text back', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool('image', { description: 'A 100 KiB image' }, async () => ({ content: [nativeImage(imageBytes(), 'image/png')] }));
  return server;
}
