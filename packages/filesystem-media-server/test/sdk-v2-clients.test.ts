// SDK v2 clients of the media server (built on SDK v2's McpServer): on each of v2's negotiations (legacy ->
// MCP 2025-11-25; auto and pinned -> 2026-07-28), over stdio and HTTP with native bytes offered, each gets its
// revision, the 14 tools, the allowed directories and read_media_file's PNG byte for byte.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { HttpMsgpackClientTransport, StdioMsgpackClientTransport } from 'mcp-msgpack-transport';
import { OUR_CLI } from './helpers/client.js';
import { PNG_BYTES } from './helpers/layout.js';
import { servedLayout } from './helpers/http-server.js';

const NEGOTIATIONS = [
  ['legacy', 'legacy', '2025-11-25'],
  ['auto', 'auto', '2026-07-28'],
  ['pinned to 2026-07-28', { pin: '2026-07-28' }, '2026-07-28'],
] as const;

describe('SDK v2 clients of the media server', { timeout: 120_000 }, () => {
  const served = servedLayout();
  const transports = {
    stdio: () => new StdioMsgpackClientTransport({ command: process.execPath, args: [OUR_CLI, served.layout.allowed], wire: 'msgpack', nativeBytes: true }),
    http: () => new HttpMsgpackClientTransport(served.http.url, { wire: 'msgpack', nativeBytes: true }),
  };

  for (const [kind, transport] of Object.entries(transports)) {
    for (const [how, mode, revision] of NEGOTIATIONS) {
      it(`${kind}, versionNegotiation ${how}: ${revision}, the 14 tools, the allowed directory, the PNG intact`, async () => {
        const client = new Client({ name: 'v2-client', version: '1.0.0' }, { versionNegotiation: { mode } });
        await client.connect(transport());
        try {
          assert.equal(client.getNegotiatedProtocolVersion(), revision);
          const { tools } = await client.listTools();
          assert.equal(tools.length, 14);
          const listed = await client.callTool({ name: 'list_allowed_directories', arguments: {} });
          assert.deepEqual(listed.structuredContent, { content: `Allowed directories:\n${served.layout.allowed}` });
          const media = await client.callTool({ name: 'read_media_file', arguments: { path: path.join(served.layout.allowed, 'pixel.png') } });
          const block = (media.content as { type: string; data?: unknown }[])[0];
          assert.equal(block?.type, 'image');
          // On 2026-07-28 the bytes cross the wire as bin and reach the SDK as base64 (the transport's own tests check the wire).
          const bytes = block.data instanceof Uint8Array ? Buffer.from(block.data) : Buffer.from(String(block.data), 'base64');
          assert.ok(bytes.equals(PNG_BYTES), 'the PNG, byte for byte');
        } finally {
          await client.close();
        }
      });
    }
  }
});
