// Native bytes on MCP 2026-07-28 through SDK v2's Client: callToolNative gets the image's bytes as bin, on
// stdio (v2's serveStdio on our stdio server) and over HTTP (our handler), while callTool on the same
// connection still gets base64. v2's Client checks every 2026-07-28 result against the spec's schema
// (base64 strings) before the caller's, so the client transport hands it placeholders for the bytes, which
// the native helpers' schemas swap back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { callToolNative, HttpMsgpackClientTransport, listenBun, listenNode, McpHttpHandler, StdioMsgpackClientTransport, type NativeImageContent } from 'mcp-msgpack-transport';
import { serverKinds } from './fixtures/http-helpers.js';
import { closeQuietly, fixture } from './fixtures/stdio-helpers.js';
import { createV2Server, V2_IMAGE } from './fixtures/v2-server.js';

const MODERN = '2026-07-28';
const CONNECT = { timeout: 15_000 };
const CALL = { timeout: 5_000 };
const negotiations = [
  ['pinned', { mode: { pin: MODERN } }],
  ['auto', { mode: 'auto' }],
] as const;

async function exercise(transport: StdioMsgpackClientTransport | HttpMsgpackClientTransport, negotiation: (typeof negotiations)[number][1]): Promise<void> {
  const client = new Client({ name: 'native-modern', version: '1.0.0' }, { versionNegotiation: negotiation });
  try {
    await client.connect(transport as never, CONNECT);
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
    assert.equal(transport.wire, 'msgpack');
    for (let call = 0; call < 2; call++) {
      const native = await callToolNative(client, { name: 'image', arguments: {} }, CALL);
      const bytes = (native.content[0] as NativeImageContent).data;
      assert.ok(bytes instanceof Uint8Array && Buffer.from(bytes).equals(V2_IMAGE), 'callToolNative: the bytes, intact');
    }
    const plain = await client.callTool({ name: 'image', arguments: {} }, CALL);
    assert.ok(Buffer.from((plain.content as { data: string }[])[0]!.data, 'base64').equals(V2_IMAGE), 'callTool: base64, intact');
  } finally {
    await closeQuietly(client);
  }
}

describe('2026-07-28 native bytes through SDK v2: stdio (serveStdio on our stdio server)', { timeout: 60_000 }, () => {
  for (const [how, negotiation] of negotiations) {
    it(`${how}: callToolNative gets bytes, callTool base64`, async () => {
      await exercise(new StdioMsgpackClientTransport({ command: process.execPath, args: [fixture('v2-stdio-server'), 'serve-ours'], nativeBytes: true }), negotiation);
    });
  }
});

for (const kind of serverKinds) {
  describe(`2026-07-28 native bytes through SDK v2: HTTP (our handler, ${kind})`, { timeout: 30_000 }, () => {
    let running: { url: URL; close(): Promise<void> };
    before(async () => {
      const handler = new McpHttpHandler({ createServer: () => createV2Server() as never, nativeBytes: true });
      running = kind === 'Bun.serve' ? await listenBun(handler) : await listenNode(handler);
    });
    after(async () => {
      await running.close();
    });
    for (const [how, negotiation] of negotiations) {
      it(`${how}: callToolNative gets bytes, callTool base64`, async () => {
        await exercise(new HttpMsgpackClientTransport(running.url, { nativeBytes: true }), negotiation);
      });
    }
  });
}
