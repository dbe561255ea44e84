// MCP roots: a client that declares roots replaces the allowed list after initialize; roots/list_changed
// makes the server ask again; unusable roots are skipped; each server instance (each HTTP session) keeps
// its own list; over stdio through the CLI (SDK v2's serveStdio) too. A 2026-07-28 client (stateless, no
// initialize) is not asked for roots: the command-line directories stay (README, "MCP roots").
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { HttpMsgpackClientTransport, StdioMsgpackClientTransport } from 'mcp-msgpack-transport';
import { ListRootsRequestSchema, type Root } from '@modelcontextprotocol/sdk/types.js';
import { call, connectInProcess, connectOver, LIMIT, newClient, OUR_CLI, textOf, type Connected } from './helpers/client.js';
import { spawnHttpServer } from './helpers/http-server.js';
import { makeLayout, type Layout } from './helpers/layout.js';

let layout: Layout;
let rootA: string;
let rootB: string;
const open: Connected[] = [];

before(async () => {
  layout = await makeLayout();
  rootA = path.join(layout.root, 'rootA');
  rootB = path.join(layout.root, 'rootB');
  for (const dir of [rootA, rootB]) {
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, 'here.txt'), `in ${path.basename(dir)}`);
  }
});
after(async () => {
  for (const c of open) await c.close();
  await layout?.cleanup();
});

/** A client offering `roots` (changeable), connected to a server started with `dirs`. */
async function connectWithRoots(dirs: string[], roots: Root[]): Promise<{ conn: Connected; setRoots(next: Root[]): Promise<void> }> {
  let current = roots;
  const client = newClient({ roots: { listChanged: true } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: current }));
  const conn = await connectInProcess(dirs, {}, client);
  open.push(conn);
  return {
    conn,
    setRoots: async (next) => {
      current = next;
      await client.sendRootsListChanged();
    },
  };
}

async function allowedList(conn: Connected): Promise<string> {
  return textOf(await call(conn.client, 'list_allowed_directories'));
}

/** Polls until the allowed list satisfies `ok` (roots are fetched asynchronously after initialize). */
async function waitForAllowed(conn: Connected, ok: (text: string) => boolean): Promise<string> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const text = await allowedList(conn);
    if (ok(text)) return text;
    if (Date.now() > deadline) throw new Error(`allowed directories never became as expected: ${text}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const uri = (dir: string) => pathToFileURL(dir).href;

describe('MCP roots', { timeout: LIMIT }, () => {
  it('roots replace the command-line directories after initialize', async () => {
    const { conn } = await connectWithRoots([layout.allowed], [{ uri: uri(rootA), name: 'A' }]);
    assert.equal(await waitForAllowed(conn, (t) => t.includes(rootA)), `Allowed directories:\n${rootA}`);
    const denied = await call(conn.client, 'read_text_file', { path: path.join(layout.allowed, 'hello.txt') });
    assert.equal(denied.isError, true);
    assert.equal(textOf(await call(conn.client, 'read_text_file', { path: path.join(rootA, 'here.txt') })), 'in rootA');
  });

  it('calls made while roots are being fetched wait for them (no call runs on the old list)', async () => {
    const client = newClient({ roots: { listChanged: true } });
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      await new Promise((r) => setTimeout(r, 300));
      return { roots: [{ uri: uri(rootA) }] };
    });
    const conn = await connectInProcess([layout.allowed], {}, client);
    open.push(conn);
    // Sent at once, before the slow roots answer: must already see rootA, and no longer the old directory.
    const [inRoot, oldDir] = await Promise.all([
      call(conn.client, 'read_text_file', { path: path.join(rootA, 'here.txt') }),
      call(conn.client, 'read_text_file', { path: path.join(layout.allowed, 'hello.txt') }),
    ]);
    assert.equal(textOf(inRoot), 'in rootA');
    assert.equal(oldDir.isError, true);
  });

  it('roots/list_changed makes the server fetch the new list', async () => {
    const { conn, setRoots } = await connectWithRoots([layout.allowed], [{ uri: uri(rootA) }]);
    await waitForAllowed(conn, (t) => t.includes(rootA));
    await setRoots([{ uri: uri(rootB) }]);
    await waitForAllowed(conn, (t) => t.includes(rootB) && !t.includes(rootA));
    assert.equal((await call(conn.client, 'read_text_file', { path: path.join(rootA, 'here.txt') })).isError, true);
    assert.equal(textOf(await call(conn.client, 'read_text_file', { path: path.join(rootB, 'here.txt') })), 'in rootB');
  });

  it('unusable roots are skipped; when none is usable the list stays as it was', async () => {
    const missing = path.join(layout.root, 'missing');
    const file = path.join(layout.allowed, 'hello.txt');
    const { conn, setRoots } = await connectWithRoots([layout.allowed], [{ uri: uri(missing) }, { uri: uri(file) }, { uri: uri(rootB) }]);
    assert.equal(await waitForAllowed(conn, (t) => t.includes(rootB)), `Allowed directories:\n${rootB}`);
    await setRoots([{ uri: uri(missing) }, { uri: 'https://example.com/' }]);
    assert.equal(await allowedList(conn), `Allowed directories:\n${rootB}`);
    // A later valid change still goes through.
    await setRoots([{ uri: uri(missing) }, { uri: uri(rootA) }]);
    await waitForAllowed(conn, (t) => t.includes(rootA));
  });

  it('a root given as a symlink is stored as its real path', async () => {
    const link = path.join(layout.root, 'root-link');
    await fs.symlink(rootA, link);
    const { conn } = await connectWithRoots([], [{ uri: uri(link) }]);
    assert.equal(await waitForAllowed(conn, (t) => t.includes(rootA)), `Allowed directories:\n${rootA}`);
    // Like the official server, only the real path is kept for roots: the link's own path is not allowed.
    assert.equal(textOf(await call(conn.client, 'read_text_file', { path: path.join(rootA, 'here.txt') })), 'in rootA');
    assert.equal((await call(conn.client, 'read_text_file', { path: path.join(link, 'here.txt') })).isError, true);
  });

  it('each server instance keeps its own list (one client’s roots do not leak into another session)', async () => {
    const first = await connectWithRoots([layout.allowed], [{ uri: uri(rootA) }]);
    await waitForAllowed(first.conn, (t) => t.includes(rootA));
    const second = await connectInProcess([layout.allowed]);
    open.push(second);
    assert.equal(await allowedList(second), `Allowed directories:\n${layout.allowed}`);
  });

  it('over HTTP, each session has its own roots', async () => {
    const server = await spawnHttpServer([layout.allowed]);
    try {
      const sessions: Connected[] = [];
      for (const dir of [rootA, rootB]) {
        const client = newClient({ roots: { listChanged: true } });
        client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: uri(dir) }] }));
        const conn = await connectOver(new StreamableHTTPClientTransport(server.url), client);
        sessions.push(conn);
        open.push(conn);
      }
      assert.equal(await waitForAllowed(sessions[0]!, (t) => !t.includes(layout.allowed)), `Allowed directories:\n${rootA}`);
      assert.equal(await waitForAllowed(sessions[1]!, (t) => !t.includes(layout.allowed)), `Allowed directories:\n${rootB}`);
      assert.equal((await call(sessions[0]!.client, 'read_text_file', { path: path.join(rootB, 'here.txt') })).isError, true);
      assert.equal(textOf(await call(sessions[1]!.client, 'read_text_file', { path: path.join(rootB, 'here.txt') })), 'in rootB');
    } finally {
      await server.stop();
    }
  });

  it("over stdio (the CLI, on SDK v2's serveStdio), roots replace the command-line directories", async () => {
    const client = newClient({ roots: { listChanged: true } });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: uri(rootA) }] }));
    const conn = await connectOver(new StdioClientTransport({ command: process.execPath, args: [OUR_CLI, layout.allowed], stderr: 'ignore' }), client);
    open.push(conn);
    assert.equal(await waitForAllowed(conn, (t) => t.includes(rootA)), `Allowed directories:\n${rootA}`);
  });

  it('2026-07-28 (no initialize): a client declaring roots is not asked; the command-line directories stay', async () => {
    const server = await spawnHttpServer([layout.allowed]);
    const transports = {
      stdio: () => new StdioMsgpackClientTransport({ command: process.execPath, args: [OUR_CLI, layout.allowed], stderr: 'ignore' }),
      http: () => new HttpMsgpackClientTransport(server.url),
    };
    try {
      for (const [kind, transport] of Object.entries(transports)) {
        let asked = 0;
        const client = new ClientV2({ name: 'modern', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
        client.setRequestHandler('roots/list', async () => {
          asked += 1;
          return { roots: [{ uri: uri(rootA) }] };
        });
        await client.connect(transport());
        try {
          const listed = await client.callTool({ name: 'list_allowed_directories', arguments: {} });
          assert.deepEqual(listed.structuredContent, { content: `Allowed directories:\n${layout.allowed}` }, kind);
          const denied = await client.callTool({ name: 'read_text_file', arguments: { path: path.join(rootA, 'here.txt') } });
          assert.equal(denied.isError, true, `${kind}: a root the server never took is not readable`);
          assert.equal(asked, 0, kind);
        } finally {
          await client.close();
        }
      }
    } finally {
      await server.stop();
    }
  });

  it('no directories and no roots: every call fails clearly', async () => {
    const conn = await connectInProcess([]);
    open.push(conn);
    const result = await call(conn.client, 'read_text_file', { path: path.join(layout.allowed, 'hello.txt') });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /no allowed directories/);
  });
});
