// SDK v2 clients of the media server (built on SDK v1): on v2's default negotiation (legacy, auto) they
// settle on MCP 2025-11-25 and get the 14 tools, over stdio and HTTP; one pinned to 2026-07-28 is refused,
// as the README says (serving that revision needs the server on SDK v2's McpServer).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { HttpMsgpackClientTransport, StdioMsgpackClientTransport } from 'mcp-msgpack-transport';
import { OUR_CLI } from './helpers/client.js';
import { servedLayout } from './helpers/http-server.js';

describe('SDK v2 clients of the media server', { timeout: 120_000 }, () => {
  const served = servedLayout();
  const transports = {
    stdio: () => new StdioMsgpackClientTransport({ command: process.execPath, args: [OUR_CLI, served.layout.allowed] }),
    http: () => new HttpMsgpackClientTransport(served.http.url),
  };

  for (const [kind, transport] of Object.entries(transports)) {
    for (const mode of ['legacy', 'auto'] as const) {
      it(`${kind}, versionNegotiation ${mode}: 2025-11-25 and the 14 tools`, async () => {
        const client = new Client({ name: 'v2-client', version: '1.0.0' }, { versionNegotiation: { mode } });
        await client.connect(transport());
        try {
          assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
          const { tools } = await client.listTools();
          assert.equal(tools.length, 14);
          assert.ok(tools.some((tool) => tool.name === 'read_media_file'));
        } finally {
          await client.close();
        }
      });
    }

    it(`${kind}, pinned to 2026-07-28: refused, saying the server does not offer it`, async () => {
      const client = new Client({ name: 'v2-client', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      try {
        await assert.rejects(client.connect(transport()), /did not offer pinned protocol version 2026-07-28/);
      } finally {
        await client.close().catch(() => {});
      }
    });
  }
});
