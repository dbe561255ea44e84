// SDK v2: where the round trip gets McpServer and Client, and how a tool declares its input.
import { Client } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

export const generation = 'v2';
export { Client, McpServer };
export const textInput = z.object({ text: z.string() });

// For matrix.mjs: v2's own transports, its revisions, and its ways of serving a server factory.
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio as v2ServeStdio } from '@modelcontextprotocol/server/stdio';

export { StdioClientTransport, StreamableHTTPClientTransport };
/** [label, the Client's versionNegotiation, the revision it must end on]. */
export const negotiations = [
  ['2025-11-25 (legacy)', { mode: 'legacy' }, '2025-11-25'],
  ['2026-07-28 pinned', { mode: { pin: '2026-07-28' } }, '2026-07-28'],
  ['2026-07-28 auto', { mode: 'auto' }, '2026-07-28'],
];
export const newClient = (negotiation) => new Client({ name: 'install-matrix', version: '1.0.0' }, { versionNegotiation: negotiation });
export const negotiatedVersion = (client) => client.getNegotiatedProtocolVersion();
/** Serves one stdio connection from the factory (both eras) on `transport`, or on v2's own stdio transport. */
export const serveStdio = (factory, transport) => v2ServeStdio(factory, transport ? { transport } : {});
/** v2's own HTTP server: createMcpHandler (both eras, 2025-11-25 stateless). */
export const sdkHttpHandler = (factory) => createMcpHandler(factory);
export const callTool = (client, params, options) => client.callTool(params, options);
