// Our clients on their DEFAULT options (no wire, no nativeBytes) against an SDK v2 server started the way v2
// documents it: serveStdio(factory) in a child process, and createMcpHandler on node:http (and Bun.serve on
// Bun). Both work on the first try, on JSON, on 2025-11-25 (v2's default 'legacy' negotiation, and SDK v1's
// Client) and on 2026-07-28 (pinned and auto). Every request runs with a few seconds' timeout, so a client
// left unanswered fails here instead of waiting the SDK's 60 s.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { Client } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { HttpMsgpackClientTransport, StdioMsgpackClientTransport, type WireSelection } from 'mcp-msgpack-transport';
import { hostFetch, type HostedFetch } from './fixtures/fetch-host.js';
import { serverKinds } from './fixtures/http-helpers.js';
import { closeQuietly, fixture } from './fixtures/stdio-helpers.js';
import { createV2Server, V2_IMAGE } from './fixtures/v2-server.js';

const LIMIT = 60_000;
/** Connecting a stdio client includes starting Node and loading SDK v2, slow on a loaded machine. */
const CONNECT = { timeout: 15_000 };
const CALL = { timeout: 5_000 };
const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';

type Negotiation = { mode: 'legacy' | 'auto' | { pin: string } };
const negotiations: [string, Negotiation, string][] = [
  ["v2's default (legacy)", { mode: 'legacy' }, LEGACY],
  ['pinned 2026-07-28', { mode: { pin: MODERN } }, MODERN],
  ['auto', { mode: 'auto' }, MODERN],
];

type OurTransport = StdioMsgpackClientTransport | HttpMsgpackClientTransport;

/** With v2's Client: lists tools, calls the text tool and the image tool (bytes intact), checks the revision and the wire. */
async function exerciseV2(transport: OurTransport, negotiation: Negotiation, revision: string): Promise<void> {
  const client = new Client({ name: 'default-peer-test', version: '1.0.0' }, { versionNegotiation: negotiation });
  try {
    await client.connect(transport as never, CONNECT);
    assert.equal(client.getNegotiatedProtocolVersion(), revision);
    assert.deepEqual((await client.listTools(undefined, CALL)).tools.map((tool) => tool.name).sort(), ['caller', 'echo', 'image']);
    assert.deepEqual((await client.callTool({ name: 'echo', arguments: { text: 'first try ✓' } }, CALL)).content, [{ type: 'text', text: 'first try ✓' }]);
    const image = (await client.callTool({ name: 'image', arguments: {} }, CALL)).content as { type: string; data: string }[];
    assert.equal(image[0]!.type, 'image');
    assert.ok(Buffer.from(image[0]!.data, 'base64').equals(V2_IMAGE), 'image bytes intact');
    assert.equal(transport.wire, 'json', 'a JSON-only peer: the client settles on JSON');
  } finally {
    await closeQuietly(client);
  }
}

/** With SDK v1's Client (2025-11-25 only): initialize, list and call. */
async function exerciseV1(transport: OurTransport): Promise<void> {
  const client = new ClientV1({ name: 'default-peer-test', version: '1.0.0' });
  try {
    await client.connect(transport, CONNECT);
    assert.equal(client.getServerVersion()?.name, 'v2-server');
    assert.deepEqual((await client.callTool({ name: 'echo', arguments: { text: 'v1 client' } }, undefined, CALL)).content, [{ type: 'text', text: 'v1 client' }]);
    assert.equal(transport.wire, 'json');
  } finally {
    await closeQuietly(client);
  }
}

describe("our stdio client, default options, against SDK v2's serveStdio(factory)", { timeout: LIMIT }, () => {
  const serveStdio = () => ({ command: process.execPath, args: [fixture('v2-serve-stdio')], stderr: 'ignore' as const });

  for (const [how, negotiation, revision] of negotiations) {
    it(`v2 Client, ${how}: ${revision}, first try, on JSON`, async () => {
      const selections: WireSelection[] = [];
      await exerciseV2(new StdioMsgpackClientTransport({ ...serveStdio(), onwireselected: (s) => selections.push(s) }), negotiation, revision);
      assert.deepEqual(selections, [{ wire: 'json', reason: 'upgrade-not-accepted' }]);
    });
  }

  it('v1 Client: 2025-11-25, first try, on JSON', async () => {
    await exerciseV1(new StdioMsgpackClientTransport(serveStdio()));
  });
});

for (const kind of serverKinds) {
  describe(`our HTTP client, default options, against SDK v2's createMcpHandler (${kind})`, { timeout: LIMIT }, () => {
    let handler: ReturnType<typeof createMcpHandler>;
    let endpoint: HostedFetch;
    before(async () => {
      handler = createMcpHandler(() => createV2Server({ native: false }));
      endpoint = await hostFetch(kind, (request) => handler.fetch(request));
    });
    after(async () => {
      await handler.close();
      await endpoint.close();
    });

    for (const [how, negotiation, revision] of negotiations) {
      it(`v2 Client, ${how}: ${revision}, first try, falls back to JSON`, async () => {
        const selections: WireSelection[] = [];
        await exerciseV2(new HttpMsgpackClientTransport(endpoint.url, { onwireselected: (s) => selections.push(s) }), negotiation, revision);
        assert.equal(selections.length, 1, 'one wire decision');
        assert.equal(selections[0]!.wire, 'json');
      });
    }

    it('v1 Client: 2025-11-25, first try, falls back to JSON', async () => {
      await exerciseV1(new HttpMsgpackClientTransport(endpoint.url));
    });
  });
}
