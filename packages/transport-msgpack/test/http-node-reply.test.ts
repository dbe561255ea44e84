// A reply in memory on node:http: the adapter writes its pieces and its header record, so the web body (a
// ReadableStream in a Response) is never made; what a caller changes on the Response still reaches the wire.
// The handler and the adapter come from the same (source) build, as in an application.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { Decoder, Encoder } from '@msgpack/msgpack';
import { MSGPACK_CLIENT_ACCEPT } from 'mcp-msgpack-transport/wire';
import { nodeRequest, writeNodeResponse } from '../src/http/node/node-adapter.js';
import { McpHttpHandler } from '../src/index.js';
import { LazyBodyResponse } from '../src/http/server/exchange/lazy-response.js';

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const onNode = typeof (globalThis as { Bun?: unknown }).Bun === 'undefined';

async function serve(handler: McpHttpHandler, seen: Response[], change?: (response: Response) => void): Promise<{ server: Server; url: string }> {
  const server = createServer(async (req, res) => {
    const response = await handler.handle(nodeRequest(req, res), { localAddress: req.socket.localAddress });
    change?.(response);
    seen.push(response);
    await writeNodeResponse(res, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` };
}

function post(url: string, wire: 'json' | 'msgpack'): Promise<Response> {
  const json = wire === 'json';
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': json ? 'application/json' : 'application/msgpack', accept: json ? 'application/json, text/event-stream' : MSGPACK_CLIENT_ACCEPT },
    body: json ? JSON.stringify(initialize) : new Encoder().encode(initialize),
  });
}

describe('node adapter: a reply in memory goes out without a web body', { skip: onNode ? false : 'Node only: Bun.serve sends a Response itself, so Bun keeps real ones', timeout: 30_000 }, () => {
  for (const wire of ['json', 'msgpack'] as const) {
    it(`${wire}: the pieces and headers are written, the body stream is never made`, async () => {
      const handler = new McpHttpHandler({ createServer: async () => (await import('./fixtures/native-tools.js')).createNativeServer() });
      const seen: Response[] = [];
      const { server, url } = await serve(handler, seen);
      try {
        const response = await post(url, wire);
        assert.equal(response.status, 200);
        const bytes = new Uint8Array(await response.arrayBuffer());
        assert.equal(Number(response.headers.get('content-length')), bytes.byteLength);
        assert.ok(response.headers.get('mcp-session-id'));
        assert.match(response.headers.get('vary') ?? '', /Accept/);
        const reply = (wire === 'json' ? JSON.parse(Buffer.from(bytes).toString('utf8')) : new Decoder().decode(bytes)) as { id: number; result: { serverInfo: { name: string } } };
        assert.equal(reply.id, 1);
        assert.equal(reply.result.serverInfo.name, 'native-bytes-test-server');
        const made = seen[0]!;
        assert.ok(made instanceof LazyBodyResponse, 'an in-memory reply on Node is lazy');
        assert.equal(made.untouchedBody, true, 'the adapter never asked for the web body');
      } finally {
        server.close();
        await handler.close();
      }
    });
  }

  it('a header a caller sets on the Response, and a body read before the adapter, still reach the wire', async () => {
    const handler = new McpHttpHandler({ createServer: async () => (await import('./fixtures/native-tools.js')).createNativeServer() });
    const seen: Response[] = [];
    const { server, url } = await serve(handler, seen, (response) => {
      response.headers.set('x-added', 'yes');
    });
    try {
      const response = await post(url, 'json');
      assert.equal(response.headers.get('x-added'), 'yes');
      const text = await response.text();
      assert.equal(Number(response.headers.get('content-length')), Buffer.byteLength(text));
      assert.equal(JSON.parse(text).id, 1);
      // The same reply read as a web body gives the same bytes.
      const made = seen[0]!;
      assert.equal(await made.clone().text(), text);
      assert.equal(await made.text(), text);
      assert.equal(made.bodyUsed, true);
    } finally {
      server.close();
      await handler.close();
    }
  });
});
