// What a tool handler is told of the HTTP request its call came in (SDK v1's `extra.requestInfo`): the
// request's headers and URL, on node:http, Bun.serve and a web-standard handle, on both wires. The record is
// made when a handler first reads it (most never do), so it must read the same as one made up front.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { HttpMsgpackClientTransport, listenBun, listenNode, McpHttpHandler } from 'mcp-msgpack-transport';
import { serverKinds } from './fixtures/http-helpers.js';

/** A server whose `seen` tool answers with what it read of extra.requestInfo, twice (the second read must match the first). */
function createProbeServer(): McpServer {
  const server = new McpServer({ name: 'request-info', version: '1' });
  server.registerTool('seen', { description: 'what the handler sees of the HTTP request' }, async (extra) => {
    const info = extra.requestInfo;
    const headers = info?.headers ?? {};
    const first = { probe: headers['x-probe'], session: headers['mcp-session-id'], url: info?.url?.href, keys: Object.keys(headers).sort() };
    const again = { probe: info?.headers['x-probe'], session: info?.headers['mcp-session-id'], url: info?.url?.href, keys: Object.keys(info?.headers ?? {}).sort() };
    assert.deepEqual(again, first);
    // As a plain record: spread and JSON see the same members.
    // Read twice: the record made on the first read is kept, not made again.
    const firstRead = info?.headers;
    const secondRead = info?.headers;
    const copied = JSON.parse(JSON.stringify({ ...info })) as { headers: Record<string, string>; url: string };
    return { content: [{ type: 'text', text: JSON.stringify({ ...first, copiedProbe: copied.headers['x-probe'], copiedUrl: copied.url, sameObject: firstRead === secondRead }) }] };
  });
  return server;
}

interface Seen {
  probe?: string;
  session?: string;
  url?: string;
  keys: string[];
  copiedProbe?: string;
  copiedUrl?: string;
  sameObject: boolean;
}

async function callSeen(url: URL, wire: 'json' | 'msgpack', probe: string): Promise<{ seen: Seen; sessionId: string | undefined }> {
  const transport = new HttpMsgpackClientTransport(new URL(`${url.href}?via=probe`), { wire, requestInit: { headers: { 'x-probe': probe } } });
  const client = new Client({ name: 't', version: '1' });
  await client.connect(transport);
  try {
    const result = (await client.callTool({ name: 'seen', arguments: {} })) as { content: Array<{ text: string }> };
    return { seen: JSON.parse(result.content[0]!.text) as Seen, sessionId: transport.sessionId };
  } finally {
    await client.close();
  }
}

for (const kind of serverKinds) {
  describe(`extra.requestInfo (${kind})`, () => {
    let running: { url: URL; close(): Promise<void> };
    before(async () => {
      const handler = new McpHttpHandler({ createServer: createProbeServer });
      running = kind === 'Bun.serve' ? await listenBun(handler) : await listenNode(handler);
    });
    after(() => running.close());

    for (const wire of ['json', 'msgpack'] as const) {
      it(`${wire}: the call's headers and URL, the same on every read, spread and serialized alike`, async () => {
        const { seen, sessionId } = await callSeen(running.url, wire, `probe-${wire}`);
        assert.equal(seen.probe, `probe-${wire}`);
        assert.equal(seen.copiedProbe, `probe-${wire}`);
        assert.ok(sessionId);
        assert.equal(seen.session, sessionId);
        assert.ok(seen.keys.includes('content-type') && seen.keys.includes('accept'), seen.keys.join());
        // Header names are lowercase, as node:http and the Fetch Headers give them.
        assert.ok(
          seen.keys.every((key) => key === key.toLowerCase()),
          seen.keys.join(),
        );
        const href = new URL(`${running.url.href}?via=probe`).href;
        assert.equal(new URL(seen.url!).pathname, running.url.pathname);
        assert.equal(new URL(seen.url!).search, '?via=probe');
        assert.equal(new URL(seen.copiedUrl!).search, new URL(href).search);
        assert.equal(seen.sameObject, true);
      });
    }
  });
}

describe('extra.requestInfo (web-standard handle)', () => {
  it("the Request's headers and URL", async () => {
    const handler = new McpHttpHandler({ createServer: createProbeServer, enableJsonResponse: true });
    try {
      const headers = { host: '127.0.0.1', 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-probe': 'web' };
      const post = (body: unknown, extra: Record<string, string> = {}) =>
        handler.handle(new Request('http://127.0.0.1/mcp?via=web', { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) }), { localAddress: '127.0.0.1' });
      const opened = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      const sessionId = opened.headers.get('mcp-session-id')!;
      await opened.arrayBuffer();
      const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
      assert.equal((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status, 202);
      const reply = (await (await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'seen', arguments: {} } }, session)).json()) as { result: { content: Array<{ text: string }> } };
      const seen = JSON.parse(reply.result.content[0]!.text) as Seen;
      assert.equal(seen.probe, 'web');
      assert.equal(seen.session, sessionId);
      assert.equal(seen.url, 'http://127.0.0.1/mcp?via=web');
      assert.equal(seen.copiedUrl, 'http://127.0.0.1/mcp?via=web');
    } finally {
      await handler.close();
    }
  });
});
