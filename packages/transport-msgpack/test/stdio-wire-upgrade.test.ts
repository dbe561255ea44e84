// Our stdio client on its defaults (wire 'auto', SPEC.md 7.1) against every kind of server it can meet,
// as child processes: JSON-only servers work on the first try, ours switches to MessagePack after the
// first answer, and an old MessagePack-first client still works with the new server. Every call runs with
// the SDK's timeout cut to a few seconds, so a client that is not answered fails instead of hanging: the
// assertion is that it works at all, not how fast.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioMsgpackClientTransport, type StdioMsgpackServerParameters, type WireSelection } from 'mcp-msgpack-transport';
import { closeQuietly, fixture, textOf } from './fixtures/stdio-helpers.js';
import { splitWires, tappingSpawn } from './fixtures/wire-taps.js';

/** The SDK's per-request timeout for these tests (its default is 60 s): connect includes starting the child. */
const CONNECT = { timeout: 10_000 };
const CALL = { timeout: 5_000 };
const UPGRADE_KEY = 'mcp-msgpack/wire';

const require = createRequire(import.meta.url);
const filesystemPackage = require.resolve('@modelcontextprotocol/server-filesystem/package.json');
const filesystemBin = join(dirname(filesystemPackage), (require(filesystemPackage) as { bin: Record<string, string> }).bin['mcp-server-filesystem']!);
const allowedDir = mkdtempSync(join(tmpdir(), 'wire-upgrade-'));
after(() => rmSync(allowedDir, { recursive: true, force: true }));

interface Connected {
  client: Client;
  transport: StdioMsgpackClientTransport;
  selections: WireSelection[];
}

async function connect(params: StdioMsgpackServerParameters): Promise<Connected> {
  const selections: WireSelection[] = [];
  const transport = new StdioMsgpackClientTransport({ ...params, onwireselected: (selection) => selections.push(selection) });
  const client = new Client({ name: 'wire-upgrade-test', version: '1.0.0' });
  await client.connect(transport, CONNECT);
  return { client, transport, selections };
}

describe('stdio client defaults against JSON-only servers: JSON on the first try', { timeout: 60_000 }, () => {
  const servers: Array<{ name: string; params: StdioMsgpackServerParameters; call: { name: string; arguments: Record<string, unknown> }; expect: RegExp }> = [
    {
      name: 'the official filesystem server (@modelcontextprotocol/server-filesystem)',
      params: { command: process.execPath, args: [filesystemBin, allowedDir], stderr: 'ignore' },
      call: { name: 'list_allowed_directories', arguments: {} },
      expect: /wire-upgrade-/,
    },
    {
      name: "the SDK's StdioServerTransport",
      params: { command: process.execPath, args: [fixture('stdio-sdk-server')] },
      call: { name: 'echo', arguments: { text: 'plain JSON' } },
      expect: /^plain JSON$/,
    },
    {
      name: 'our server forced to JSON (declines the offer)',
      params: { command: process.execPath, args: [fixture('stdio-server')], env: { MCP_TEST_WIRE: 'json' } },
      call: { name: 'echo', arguments: { text: 'declined' } },
      expect: /^declined$/,
    },
  ];
  for (const server of servers) {
    it(`${server.name}: lists tools and calls one, and the wire stays JSON`, async () => {
      const taps = tappingSpawn();
      const { client, transport, selections } = await connect({ ...server.params, spawn: taps.spawn });
      try {
        assert.ok((await client.listTools(undefined, CALL)).tools.some((tool) => tool.name === server.call.name));
        assert.match(textOf(await client.callTool(server.call, undefined, CALL)), server.expect);
        assert.equal(transport.wire, 'json');
        assert.deepEqual(selections, [{ wire: 'json', reason: 'upgrade-not-accepted' }]);
      } finally {
        await closeQuietly(client);
      }
      // Only the first request offered; nothing but JSON lines went either way.
      const sent = splitWires(taps.toServer.bytes);
      assert.deepEqual(sent.frames, []);
      assert.deepEqual(sent.lines[0].params._meta, { [UPGRADE_KEY]: { offer: ['msgpack-v1'], mixed: true } });
      assert.ok(sent.lines.slice(1).every((line) => line.params?._meta?.[UPGRADE_KEY] === undefined));
      assert.deepEqual(splitWires(taps.toClient.bytes).frames, []);
    });
  }
});

describe('stdio client defaults against our server: the upgrade to MessagePack', { timeout: 60_000 }, () => {
  it("switches after the initialize answer; with encoding 'smallest' on both sides: one JSON line each way, then only msgpack-v1 frames", async () => {
    const taps = tappingSpawn();
    const server = { command: process.execPath, args: [fixture('stdio-server')], env: { MCP_TEST_ENCODING: 'smallest' } };
    const { client, transport, selections } = await connect({ ...server, encoding: 'smallest', spawn: taps.spawn });
    try {
      assert.equal(transport.wire, 'msgpack');
      assert.deepEqual(selections, [{ wire: 'msgpack', reason: 'upgrade-accepted' }]);
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'after the switch ✓' } }, undefined, CALL)), 'after the switch ✓');
      const progress: number[] = [];
      await client.callTool({ name: 'progress', arguments: { steps: 3 } }, undefined, { ...CALL, onprogress: (p) => progress.push(p.progress) });
      assert.deepEqual(progress, [1, 2, 3]);
    } finally {
      await closeQuietly(client);
    }
    const sent = splitWires(taps.toServer.bytes);
    assert.equal(sent.lines.length, 1);
    assert.equal(sent.lines[0].method, 'initialize');
    assert.deepEqual(sent.lines[0].params._meta, { [UPGRADE_KEY]: { offer: ['msgpack-v1'], mixed: true } });
    assert.deepEqual(
      sent.frames.map((m) => m.method),
      ['notifications/initialized', 'tools/call', 'tools/call'],
    );
    const received = splitWires(taps.toClient.bytes);
    assert.equal(received.lines.length, 1);
    assert.equal(received.lines[0].id, sent.lines[0].id);
    assert.deepEqual(received.lines[0].result._meta, { [UPGRADE_KEY]: { accept: 'msgpack-v1', mixed: true } });
    assert.equal(received.frames.at(-1).id, sent.frames.at(-1).id);
    assert.deepEqual(received.frames.filter((m) => m.method === 'notifications/progress').length, 3);
  });

  it("an old MessagePack-first client (wire 'msgpack') still works: frames from the first byte", async () => {
    const taps = tappingSpawn();
    const { client, transport, selections } = await connect({ command: process.execPath, args: [fixture('stdio-server')], wire: 'msgpack', spawn: taps.spawn });
    try {
      assert.deepEqual(selections, [{ wire: 'msgpack', reason: 'forced' }]);
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'old client' } }, undefined, CALL)), 'old client');
      assert.equal(transport.wire, 'msgpack');
    } finally {
      await closeQuietly(client);
    }
    const sent = splitWires(taps.toServer.bytes);
    assert.deepEqual(sent.lines, []);
    assert.equal(sent.frames[0].method, 'initialize');
    assert.equal(sent.frames[0].params._meta, undefined);
    assert.deepEqual(splitWires(taps.toClient.bytes).lines, []);
  });

  it("wire 'json' offers nothing and stays on JSON with our server", async () => {
    const taps = tappingSpawn();
    const { client, transport, selections } = await connect({ command: process.execPath, args: [fixture('stdio-server')], wire: 'json', spawn: taps.spawn });
    try {
      assert.deepEqual(selections, [{ wire: 'json', reason: 'forced' }]);
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'json' } }, undefined, CALL)), 'json');
      assert.equal(transport.wire, 'json');
    } finally {
      await closeQuietly(client);
    }
    const sent = splitWires(taps.toServer.bytes);
    assert.deepEqual(sent.frames, []);
    assert.ok(sent.lines.every((line) => line.params?._meta?.[UPGRADE_KEY] === undefined));
  });
});
