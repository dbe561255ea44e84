import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createFilesystemServer, resolveAllowedDirectories } from 'mcp-filesystem-media-server';
import { McpHttpHandler, type McpHttpHandlerOptions } from 'mcp-msgpack-transport';
import { z } from 'zod';
import { startRecordingServer, type RecordingServer } from './recording-http.js';

export interface ServedHandler extends RecordingServer {
  handler: McpHttpHandler;
}

/** The media server (packages/filesystem-media-server) over Streamable HTTP, as its CLI serves it, recorded. */
export async function startMediaServer(dir: string): Promise<ServedHandler> {
  const allowedDirectories = await resolveAllowedDirectories([dir]);
  return serveHandler({ createServer: () => createFilesystemServer({ allowedDirectories, log: () => {}, nativeBytes: true }), nativeBytes: true });
}

export async function serveHandler(options: McpHttpHandlerOptions): Promise<ServedHandler> {
  const handler = new McpHttpHandler(options);
  const recording = await startRecordingServer(handler.handleNode);
  return {
    ...recording,
    handler,
    close: async () => {
      await handler.close();
      await recording.close();
    },
  };
}

/** A small server whose `count` tool counts its calls: a request run twice shows. */
export function countingServer(counter: { calls: number }): McpServer {
  const server = new McpServer({ name: 'counting', version: '1.0.0' });
  server.registerTool('count', { description: 'counts its calls', inputSchema: {} }, async () => {
    counter.calls++;
    return { content: [{ type: 'text', text: String(counter.calls) }] };
  });
  server.registerTool('sleep', { description: 'answers after ms', inputSchema: { ms: z.number() } }, async ({ ms }) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { content: [{ type: 'text', text: 'slept' }] };
  });
  return server;
}

/** The SDK's own Streamable HTTP server (v1, node:http): JSON only, sessions, recorded. */
export async function startSdkJsonServer(make: () => McpServer): Promise<RecordingServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    const existing = sessionId ? sessions.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(req, res);
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    if (sessionId || !isInitializeRequest(body)) {
      res.writeHead(sessionId ? 404 : 400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
      return;
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (id) => void sessions.set(id, transport) });
    transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
    await make().connect(transport);
    await transport.handleRequest(req, res, body);
  };
  const recording = await startRecordingServer(handle);
  return {
    ...recording,
    close: async () => {
      for (const transport of sessions.values()) await transport.close().catch(() => {});
      await recording.close();
    },
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  // A body that does not parse: the SDK answers it; here it is just not an initialize.
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}
