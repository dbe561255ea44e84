// Host to remote: the host's `notifications/initialized` reaches the server before the request the host sends
// right after it. Each forward is its own POST, so without the bridge holding the request back, a server that
// is slow to take the notification sees the request first (and may refuse it: the session is not initialized).
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { connectHost, LIMIT } from './helpers/bridge.js';

/** How long the server takes to accept the notification: far more than the request needs to overtake it. */
const NOTIFICATION_DELAY_MS = 400;

/**
 * A minimal JSON Streamable HTTP server that records each message when it takes it in: the notification
 * after NOTIFICATION_DELAY_MS, everything else at once.
 */
async function startSlowNotificationServer(): Promise<{ url: URL; taken: string[]; close(): Promise<void> }> {
  const taken: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: number | string; method?: string; params?: { protocolVersion?: string } };
      if (message.method === 'notifications/initialized') await new Promise((resolve) => setTimeout(resolve, NOTIFICATION_DELAY_MS));
      taken.push(message.method ?? 'response');
      if (message.id === undefined) return void res.writeHead(202).end();
      const result =
        message.method === 'initialize'
          ? { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'slow', version: '1.0.0' } }
          : message.method === 'tools/list'
            ? { tools: [] }
            : {};
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'session-1' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    taken,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('host to remote: message order', () => {
  let server: Awaited<ReturnType<typeof startSlowNotificationServer>>;
  before(async () => (server = await startSlowNotificationServer()));
  after(() => server.close());

  it("holds the host's next request until the server has taken notifications/initialized", async () => {
    const host = await connectHost(server.url, ['--wire', 'json']);
    try {
      // The SDK's client sends the notification and returns from connect(); the request follows at once.
      await host.client.listTools(undefined, { timeout: LIMIT });
      assert.deepEqual(server.taken, ['initialize', 'notifications/initialized', 'tools/list'], host.stderr());
    } finally {
      await host.close();
    }
  });
});
