// SDK v1: where the round trip gets McpServer and Client, and how a tool declares its input.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export const generation = 'v1';
export { Client, McpServer };
export const textInput = { text: z.string() };

// For matrix.mjs: v1's own transports, its one revision, and its ways of serving a server factory.
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

export { StdioClientTransport, StreamableHTTPClientTransport };
/** v1's Client has no version negotiation: 2025-11-25 only. */
export const negotiations = [['2025-11-25', undefined, '2025-11-25']];
export const newClient = () => new Client({ name: 'install-matrix', version: '1.0.0' });
export const negotiatedVersion = () => '2025-11-25';
export const serveStdio = (factory, transport) => factory().connect(transport ?? new StdioServerTransport());
/** v1's own HTTP server, stateless: a server and a web-standard transport per request. */
export function sdkHttpHandler(factory) {
  return {
    async fetch(request) {
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await factory().connect(transport);
      return transport.handleRequest(request);
    },
    async close() {},
  };
}
export const callTool = (client, params, options) => client.callTool(params, undefined, options);
