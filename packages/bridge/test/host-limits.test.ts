// Host to remote, where a stock host's own limits meet the bridge: its 10 MiB stdio line, its 60 s request
// wait, its notifications (one stalled, one meeting an expired session), and hosts that skip the handshake
// or close stdin right after asking.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectHost, LIMIT, runBridge, waitFor, withTimeout, type RunningBridge } from './helpers/bridge.js';
import { countingServer, serveHandler, startMediaServer, type ServedHandler } from './helpers/servers.js';

const MiB = 1024 * 1024;
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h', version: '1' } } };

interface Line {
  id?: number;
  result?: Record<string, unknown>;
  error?: { message: string };
}

/** The JSON-RPC lines the bridge wrote to the host so far. */
function linesOf(bridge: RunningBridge): Line[] {
  return bridge
    .stdout()
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Line);
}

async function answerTo(bridge: RunningBridge, id: number): Promise<Line> {
  await waitFor(() => linesOf(bridge).some((line) => line.id === id), `the answer to request ${id}`, LIMIT);
  return linesOf(bridge).find((line) => line.id === id)!;
}

function write(bridge: RunningBridge, message: unknown): void {
  bridge.child.stdin!.write(`${JSON.stringify(message)}\n`);
}

describe('host to remote: a reply over the stock host line limit', () => {
  let dir: string;
  let small: Buffer;
  let server: ServedHandler;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bridge-line-cap-'));
    small = randomBytes(1000);
    // 8 MiB: 10.67 MiB of base64 in the host's JSON line, over the SDKs' 10 MiB.
    await writeFile(join(dir, 'big.png'), randomBytes(8 * MiB));
    await writeFile(join(dir, 'small.png'), small);
    server = await startMediaServer(dir);
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers with a tool error saying why, says so in one stderr line, and keeps the connection', async () => {
    const host = await connectHost(server.url);
    try {
      const result = await host.client.callTool({ name: 'read_media_file', arguments: { path: join(dir, 'big.png') } }, { timeout: LIMIT });
      assert.equal(result.isError, true);
      const text = (result.content as Array<{ text?: string }>)[0]!.text!;
      assert.match(text, /the reply is 10\.67 MiB as one JSON line, over the 9\.94 MiB a stdio JSON client reads/);
      assert.equal(host.stderr().match(/an answer to the host was replaced/g)?.length, 1, host.stderr());
      // The host is still connected: the next call gets its image.
      const next = await host.client.callTool({ name: 'read_media_file', arguments: { path: join(dir, 'small.png') } }, { timeout: LIMIT });
      assert.ok(Buffer.from((next.content as Array<{ data: string }>)[0]!.data, 'base64').equals(small));
    } finally {
      await host.close();
    }
  });
});

/**
 * A JSON Streamable HTTP server that leaves the first `stall` POSTs of notifications/initialized unanswered
 * (as a stopped or wedged server does) and records what it takes, in order.
 */
async function startStallingServer(stall: number): Promise<{ url: URL; taken: string[]; close(): Promise<void> }> {
  const taken: string[] = [];
  let stalled = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: number; method?: string; params?: { protocolVersion?: string } };
      taken.push(message.method ?? 'response');
      if (message.method === 'notifications/initialized' && stalled < stall) return void stalled++;
      if (message.id === undefined) return void res.writeHead(202).end();
      const result = message.method === 'initialize' ? { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'stalling', version: '1.0.0' } } : { tools: [] };
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'session-1' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`),
    taken,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('host to remote: a stalled notifications/initialized', () => {
  // --request-timeout 4000: each attempt at the notification gets 1 s, three attempts.
  it('is sent again after its deadline, and the held request goes on as soon as the server takes it', async () => {
    const server = await startStallingServer(1);
    const host = await connectHost(server.url, ['--wire', 'json', '--request-timeout', '4000']);
    try {
      const started = Date.now();
      await host.client.listTools(undefined, { timeout: LIMIT });
      assert.ok(Date.now() - started < 3000, `${Date.now() - started} ms`);
      assert.deepEqual(server.taken, ['initialize', 'notifications/initialized', 'notifications/initialized', 'tools/list'], host.stderr());
    } finally {
      await host.close();
      await server.close();
    }
  });

  it('lets the held messages go after the last attempt, with one stderr line', async () => {
    const server = await startStallingServer(Infinity);
    const host = await connectHost(server.url, ['--wire', 'json', '--request-timeout', '4000']);
    try {
      await host.client.listTools(undefined, { timeout: LIMIT });
      assert.equal(server.taken.filter((method) => method === 'notifications/initialized').length, 3);
      assert.equal(server.taken.at(-1), 'tools/list');
      assert.match(host.stderr(), /did not take notifications\/initialized after 3 attempts/);
    } finally {
      await host.close();
      await server.close();
    }
  });
});

describe('host to remote: notifications and hosts out of step', () => {
  it('sends a host notification that met an expired session again on the new session, once', async () => {
    // Which server instance (one per session, 1 first) took each roots/list_changed.
    const roots: number[] = [];
    let sessions = 0;
    const server = await serveHandler({
      createServer: () => {
        const session = ++sessions;
        const mcp = countingServer({ calls: 0 });
        mcp.server.setNotificationHandler(RootsListChangedNotificationSchema, () => void roots.push(session));
        return mcp;
      },
    });
    const bridge = runBridge([server.url.href]);
    try {
      write(bridge, INITIALIZE);
      await answerTo(bridge, 1);
      write(bridge, { jsonrpc: '2.0', method: 'notifications/initialized' });
      write(bridge, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
      await answerTo(bridge, 2);
      const sessionId = server.exchanges.find((exchange) => exchange.sessionId)?.sessionId;
      assert.ok(sessionId);
      // The server ends the session; the host's next message is a notification.
      const deleted = await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
      assert.equal(deleted.status, 200);
      write(bridge, { jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
      await waitFor(() => roots.length > 0, 'the notification on the new session', 10_000);
      assert.deepEqual(roots, [2], 'once, on the new session');
      assert.equal(bridge.stderr().match(/ended session/g)?.length, 1, bridge.stderr());
    } finally {
      await bridge.stop();
      await server.close();
    }
  });

  it('answers a request sent before initialize with an error that says so, and stays', async () => {
    const server = await serveHandler({ createServer: () => countingServer({ calls: 0 }) });
    const bridge = runBridge([server.url.href]);
    try {
      write(bridge, { jsonrpc: '2.0', id: 7, method: 'tools/list' });
      const refused = await answerTo(bridge, 7);
      assert.match(refused.error!.message, /^mcp-msgpack-bridge: the host sent tools\/list before initialize/);
      assert.match(refused.error!.message, /a 2025-era MCP session starts with an initialize request/);
      // Not the end of the bridge: the host can still start properly.
      write(bridge, INITIALIZE);
      const answer = await answerTo(bridge, 1);
      assert.ok(answer.result, JSON.stringify(answer));
    } finally {
      await bridge.stop();
      await server.close();
    }
  });

  it('answers a request the host sent right before closing stdin, then exits 0', async () => {
    const server = await serveHandler({ createServer: () => countingServer({ calls: 0 }) });
    const bridge = runBridge([server.url.href]);
    try {
      bridge.child.stdin!.end(`${JSON.stringify(INITIALIZE)}\n`);
      const { code } = await withTimeout(bridge.exited, LIMIT, 'bridge exit');
      assert.equal(code, 0);
      const answer = linesOf(bridge).find((line) => line.id === 1);
      assert.ok(answer?.result, bridge.stdout() + bridge.stderr());
    } finally {
      await bridge.stop();
      await server.close();
    }
  });
});
