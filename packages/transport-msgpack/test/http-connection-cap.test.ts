// A flood of connections that send no request locks nobody out (issue 39, item 6). At listenNode's cap, a new
// connection closes the one that has waited longest with no request in flight (silent, kept alive between
// requests, or with its headers in part) and takes its slot, so a new client's MCP call is served while the
// flood is held; requests in flight keep their connections. On Bun, listenNode runs on Bun's node:http, which
// shows a connection only once it sends bytes (a silent one never holds a slot); listenBun counts requests in
// flight, not connections (Bun.serve shows none), so connections waiting there hold no slot to begin with:
// the same flood, the same call served on both.
import assert from 'node:assert/strict';
import type { Server as NodeServer } from 'node:http';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HttpMsgpackClientTransport, McpHttpHandler, listenBun, listenNode, type ListenOptions } from 'mcp-msgpack-transport';
import { createHttpTestServer, isBun, textOf } from './fixtures/http-helpers.js';
import { connectionsOf, waitUntil } from './fixtures/connection-count.js';
import { keptAlive, postHead, rawConnection, type RawConnection } from './fixtures/raw-connections.js';

const CAP = 50;
/** Long enough that no deadline closes a held connection while a test runs: only the cap does. */
const NO_DEADLINES: ListenOptions = { maxConnections: CAP, headersTimeoutMs: 120_000, requestTimeoutMs: 120_000, idleTimeoutMs: 120_000, keepAliveTimeoutMs: 120_000 };
const GIVE_UP_MS = 60_000;

type Running = { url: URL; server?: NodeServer; close(): Promise<void> };
const listeners: [string, (handler: McpHttpHandler, options: ListenOptions) => Promise<Running>][] = [['listenNode', listenNode]];
if (isBun) listeners.push(['listenBun', listenBun]);

/** Opens a raw connection and waits until the client side is connected. */
async function opened(url: URL): Promise<RawConnection> {
  const connection = rawConnection(url, GIVE_UP_MS);
  await new Promise((resolve) => connection.socket.once('connect', resolve));
  return connection;
}

/** A full MCP exchange by a new client (our client, SDK v1): initialize, then `echo`. */
async function callsEcho(url: URL): Promise<string> {
  const client = new Client({ name: 'newcomer', version: '1' });
  await client.connect(new HttpMsgpackClientTransport(url));
  try {
    return textOf(await client.callTool({ name: 'echo', arguments: { text: 'in' } }));
  } finally {
    await client.close();
  }
}

describe('a flood of connections without a request at the connection cap', { timeout: 60_000 }, () => {
  for (const [name, listen] of listeners) {
    it(`${name}: a new client's call is served with the cap filled by idle, kept-alive and partial-header connections; the oldest waiting go first, requests in flight stay`, async () => {
      const running = await listen(new McpHttpHandler({ createServer: createHttpTestServer }), NO_DEADLINES);
      let requests = 0;
      running.server?.on('request', () => requests++);
      const held: { kind: string; connection: RawConnection }[] = [];
      const hold = (kind: string, connection: RawConnection) => held.push({ kind, connection });
      try {
        // Oldest first: 5 requests in flight (bodies that never finish), 15 silent, 15 kept alive after
        // one request, 15 with their headers in part: 50, the cap.
        for (let i = 0; i < 5; i++) {
          const connection = await opened(running.url);
          connection.socket.write(postHead(running.url, 100));
          hold('in flight', connection);
        }
        for (let i = 0; i < 15; i++) hold('silent', await opened(running.url));
        for (let i = 0; i < 15; i++) hold('kept alive', await keptAlive(running.url, GIVE_UP_MS));
        for (let i = 0; i < 15; i++) {
          const connection = await opened(running.url);
          connection.socket.write(`POST ${running.url.pathname} HTTP/1.1\r\nHost: ${running.url.host}\r\nContent-Ty`);
          hold('partial headers', connection);
        }
        const { server } = running;
        // The server has the 5 in-flight and 15 kept-alive requests' headers (so those are not waiting), and
        // Node's has accepted all 50 (Bun's node:http counts only those that sent bytes).
        if (server) await waitUntil(() => requests === 20, 'the in-flight and kept-alive requests');
        if (server && !isBun) await waitUntil(async () => (await connectionsOf(server)) === CAP, `the server to hold all ${CAP}`);
        assert.equal(held.filter(({ connection }) => !connection.socket.destroyed).length, CAP, 'every held connection open before the newcomer');

        assert.equal(await callsEcho(running.url), 'in');

        const closed = held.filter(({ connection }) => connection.socket.destroyed);
        assert.ok(
          held.slice(0, 5).every(({ connection }) => !connection.socket.destroyed),
          'requests in flight keep their connections',
        );
        if (server && !isBun) {
          // The newcomer's connections took the slots of the oldest waiting ones: the first silent ones. (Not
          // on Bun's node:http, which emits 'connection' only once bytes arrive: silent connections hold no
          // slot there, and which waiting ones go is Bun's order, so only the call and the in-flight ones are asserted.)
          await waitUntil(() => held[5]!.connection.socket.destroyed, 'the oldest waiting connection to be closed');
          const closedNow = held.filter(({ connection }) => connection.socket.destroyed);
          assert.ok(closedNow.length >= 1 && closedNow.length <= 15, `${closedNow.length} closed`);
          assert.deepEqual(new Set(closedNow.map(({ kind }) => kind)), new Set(['silent']), 'only the oldest waiting ones were closed');
          assert.ok((await connectionsOf(server)) <= CAP, 'the cap still holds');
        } else if (!server) {
          // Bun.serve: waiting connections hold no slot, so none had to go.
          assert.deepEqual(closed, []);
        }
      } finally {
        for (const { connection } of held) connection.socket.destroy();
        await running.close();
      }
    });
  }
});
