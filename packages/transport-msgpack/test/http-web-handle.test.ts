// McpHttpHandler.handle() used as a web-standard fetch handler (Hono, Deno, a framework on Node): replies
// read through response.body, on both wires, including the in-memory bodies the node adapter writes itself.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decoder } from '@msgpack/msgpack';
import { McpHttpHandler } from 'mcp-msgpack-transport';
import { MSGPACK_CLIENT_ACCEPT } from 'mcp-msgpack-transport/wire';
import { createNativeServer, mediaBytes } from './fixtures/native-tools.js';

const URL_ = 'http://127.0.0.1/mcp';
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const decoder = new Decoder({ maxBinLength: 1 << 20, maxStrLength: 1 << 20 });

async function session(handler: McpHttpHandler, wire: 'json' | 'msgpack'): Promise<(message: unknown) => Promise<unknown>> {
  let id: string | undefined;
  const post = async (message: unknown) => {
    const headers: Record<string, string> = wire === 'json'
      ? { host: '127.0.0.1', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
      : { host: '127.0.0.1', 'content-type': 'application/msgpack', accept: MSGPACK_CLIENT_ACCEPT };
    if (id) Object.assign(headers, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' });
    const { Encoder } = await import('@msgpack/msgpack');
    const body = wire === 'json' ? JSON.stringify(message) : new Encoder().encode(message);
    const response = await handler.handle(new Request(URL_, { method: 'POST', headers, body }), { localAddress: '127.0.0.1' });
    id ??= response.headers.get('mcp-session-id') ?? undefined;
    if (response.status === 202) return undefined;
    assert.equal(response.status, 200);
    if (wire === 'json') {
      // Set on Node (the adapter-less body is lazy); Bun adds it when it sends.
      const length = response.headers.get('content-length');
      if (length !== null) assert.equal(Number(length), Buffer.byteLength(await response.clone().text()));
      return response.json();
    }
    return decoder.decode(new Uint8Array(await response.arrayBuffer()));
  };
  await post(initialize);
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return post;
}

describe('McpHttpHandler.handle() as a web fetch handler', { timeout: 30_000 }, () => {
  for (const wire of ['json', 'msgpack'] as const) {
    it(`${wire}: single replies read through response.body, a 200 KB image among them`, async () => {
      const handler = new McpHttpHandler({ createServer: createNativeServer, nativeBytes: true, enableJsonResponse: true });
      try {
        const post = await session(handler, wire);
        const reply = (await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'image', arguments: { bytes: 200_000, seed: 3 } } })) as {
          result: { content: { type: string; data?: unknown }[] };
        };
        const data = reply.result.content.find((block) => block.type === 'image')!.data;
        // Not negotiated (the raw requests do not offer it): standard base64 on both wires.
        assert.ok(Buffer.from(data as string, 'base64').equals(mediaBytes(200_000, 3)));
      } finally {
        await handler.close();
      }
    });
  }
});
