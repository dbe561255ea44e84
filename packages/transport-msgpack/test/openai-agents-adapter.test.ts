// OpenAIAgentsMcpServer (mcp-msgpack-transport/agents): the MCPServer surface @openai/agents calls, over our stdio
// client transport with an SDK v1 and an SDK v2 Client, against an in-process server with native bytes on.
// The framework itself drives it in `npm run test:frameworks` (scripts/test-frameworks.mjs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { OpenAIAgentsMcpServer } from 'mcp-msgpack-transport/agents';
import { clientTransport, inProcessPair } from './fixtures/native-helpers.js';
import { createNativeServer, mediaBytes } from './fixtures/native-tools.js';

const CLIENTS = {
  'SDK v1 Client': () => new ClientV1({ name: 'agents-adapter-test', version: '1.0.0' }),
  'SDK v2 Client': () => new ClientV2({ name: 'agents-adapter-test', version: '1.0.0' }),
};

function serverFor(makeClient: () => ClientV1 | ClientV2, options: { cacheToolsList?: boolean } = {}) {
  const pair = inProcessPair(createNativeServer(), { nativeBytes: true });
  const transport = clientTransport(pair, 'msgpack', true);
  return { transport, pair, server: new OpenAIAgentsMcpServer({ name: 'media', client: makeClient(), transport, ...options }) };
}

describe('OpenAIAgentsMcpServer', { timeout: 60_000 }, () => {
  for (const [label, makeClient] of Object.entries(CLIENTS)) {
    it(`${label}: connect, listTools, a text and an image call (bytes intact, bin on the wire), close`, async () => {
      const { server, transport, pair } = serverFor(makeClient);
      await server.connect();
      try {
        assert.equal(transport.wire, 'msgpack');
        const tools = await server.listTools();
        assert.ok(
          tools.some((tool) => tool.name === 'image' && tool.inputSchema.type === 'object'),
          tools.map((t) => t.name).join(),
        );

        const text = await server.callTool('large-object', { seed: 3 });
        assert.deepEqual(text, [{ type: 'text', text: 'object 3' }]);
        const full = await server.callToolResult('large-object', { seed: 3 });
        assert.equal(typeof full.structuredContent, 'object');

        const expected = mediaBytes(100_000, 7);
        const content = await server.callTool('image', { bytes: expected.length, seed: 7 });
        const image = content.find((block) => block.type === 'image') as unknown as { data: string; mimeType: string };
        assert.equal(image.mimeType, 'image/png');
        assert.ok(Buffer.from(image.data, 'base64').equals(expected), 'the image bytes differ');
        // Native bytes on the wire: the server's frames hold the raw image, not its base64.
        assert.ok(Buffer.concat(pair.toClient.chunks).includes(Buffer.from(expected)), 'the raw image is not on the wire');
      } finally {
        await server.close();
      }
    });
  }

  it('cacheToolsList keeps the first listing until invalidateToolsCache()', async () => {
    const { server } = serverFor(CLIENTS['SDK v1 Client'], { cacheToolsList: true });
    await server.connect();
    try {
      const first = await server.listTools();
      assert.equal(await server.listTools(), first);
      await server.invalidateToolsCache();
      const second = await server.listTools();
      assert.notEqual(second, first);
      assert.deepEqual(second, first);
    } finally {
      await server.close();
    }
  });

  it('an aborted call rejects, and the connection goes on', async () => {
    const { server } = serverFor(CLIENTS['SDK v2 Client']);
    await server.connect();
    try {
      const controller = new AbortController();
      const call = server.callTool('slow-image', { bytes: 10, waitMs: 2_000 }, null, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error('run cancelled')), 50);
      await assert.rejects(call);
      assert.deepEqual(await server.callTool('large-object', { seed: 1 }), [{ type: 'text', text: 'object 1' }]);
    } finally {
      await server.close();
    }
  });

  it('refuses calls before connect() and bad options at construction', async () => {
    const { server } = serverFor(CLIENTS['SDK v1 Client']);
    await assert.rejects(server.listTools(), /not connected/);
    await assert.rejects(server.callTool('image', {}), /not connected/);
    assert.throws(() => new OpenAIAgentsMcpServer({ name: '', client: new ClientV1({ name: 'x', version: '1' }), transport: {} }), /name/);
    assert.throws(() => new OpenAIAgentsMcpServer({ name: 'x', client: {} as never, transport: {} }), /client/);
  });

  it('passes the Agents SDK options it does not use itself through to the server object', () => {
    const toolFilter = { allowedToolNames: ['image'] };
    const server = new OpenAIAgentsMcpServer({ name: 'media', client: new ClientV1({ name: 'x', version: '1' }), transport: {}, toolFilter, useStructuredContent: true });
    assert.equal((server as unknown as { toolFilter: unknown }).toolFilter, toolFilter);
    assert.equal((server as unknown as { useStructuredContent: unknown }).useStructuredContent, true);
  });
});
