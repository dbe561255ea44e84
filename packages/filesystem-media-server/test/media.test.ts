// read_media_file and file resources on every wire a client can meet: JSON and MessagePack over stdio,
// MessagePack and JSON over Streamable HTTP (our CLI in a child process each time).
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HttpMsgpackClientTransport, StdioMsgpackClientTransport } from 'mcp-msgpack-transport';
import { call, connectOver, LIMIT, OUR_CLI, type Connected } from './helpers/client.js';
import { servedLayout } from './helpers/http-server.js';
import { PNG_BYTES } from './helpers/layout.js';

const served = servedLayout();

const at = (...parts: string[]) => path.join(served.layout.allowed, ...parts);
const stdioArgs = () => [OUR_CLI, served.layout.allowed];

const wires: { name: string; transport: () => Transport }[] = [
  { name: 'JSON over stdio (SDK client)', transport: () => new StdioClientTransport({ command: process.execPath, args: stdioArgs(), stderr: 'ignore' }) },
  { name: 'MessagePack over stdio', transport: () => new StdioMsgpackClientTransport({ command: process.execPath, args: stdioArgs(), stderr: 'ignore', wire: 'msgpack' }) },
  { name: 'MessagePack over HTTP', transport: () => new HttpMsgpackClientTransport(served.http.url, { wire: 'msgpack' }) },
  { name: 'JSON over HTTP (SDK client)', transport: () => new StreamableHTTPClientTransport(served.http.url) },
];

function mediaBytes(result: CallToolResult): Buffer {
  const block = result.content[0]!;
  if (block.type === 'image' || block.type === 'audio') return Buffer.from(block.data, 'base64');
  if (block.type === 'resource' && 'blob' in block.resource) return Buffer.from(block.resource.blob, 'base64');
  throw new Error(`not media: ${block.type}`);
}

for (const wire of wires) {
  describe(`media on ${wire.name}`, { timeout: LIMIT * 2 }, () => {
    let conn: Connected;
    before(async () => {
      conn = await connectOver(wire.transport());
    });
    after(async () => {
      await conn?.close();
    });

    it('image, audio and other files come back whole, with metadata (not a second copy) in structuredContent', async () => {
      const png = await call(conn.client, 'read_media_file', { path: at('pixel.png') });
      assert.equal(png.content[0]!.type, 'image');
      assert.deepEqual(mediaBytes(png), PNG_BYTES);
      assert.deepEqual(png.structuredContent, { path: at('pixel.png'), uri: `file://${at('pixel.png')}`, mimeType: 'image/png', size: PNG_BYTES.length });
      const wav = await call(conn.client, 'read_media_file', { path: at('sound.wav') });
      assert.equal(wav.content[0]!.type, 'audio');
      assert.deepEqual(mediaBytes(wav), await fs.readFile(at('sound.wav')));
      const bin = await call(conn.client, 'read_media_file', { path: at('blob.bin') });
      assert.equal(bin.content[0]!.type, 'resource');
      assert.deepEqual(mediaBytes(bin), Buffer.from([0, 1, 2, 3, 254, 255]));
    });

    it('reads the file fresh on every call', async () => {
      const file = at(`fresh-${wire.name.replace(/\W+/g, '-')}.png`);
      await fs.writeFile(file, Buffer.from('first version'));
      assert.equal(mediaBytes(await call(conn.client, 'read_media_file', { path: file })).toString(), 'first version');
      await fs.writeFile(file, Buffer.from('second, longer version'));
      assert.equal(mediaBytes(await call(conn.client, 'read_media_file', { path: file })).toString(), 'second, longer version');
    });

    it("as: 'resource_link' answers with a link that resources/read resolves", async () => {
      const linked = await call(conn.client, 'read_media_file', { path: at('pixel.png'), as: 'resource_link' });
      const link = linked.content[0]!;
      assert.equal(link.type, 'resource_link');
      if (link.type !== 'resource_link') return;
      assert.deepEqual({ uri: link.uri, name: link.name, mimeType: link.mimeType, size: link.size }, { uri: `file://${at('pixel.png')}`, name: 'pixel.png', mimeType: 'image/png', size: PNG_BYTES.length });
      const read = await conn.client.readResource({ uri: link.uri });
      const contents = read.contents[0]!;
      assert.ok('blob' in contents);
      assert.deepEqual(Buffer.from(contents.blob, 'base64'), PNG_BYTES);
      assert.equal(contents.mimeType, 'image/png');
    });

    it('resources/read serves UTF-8 text as text, the rest as blobs', async () => {
      const text = (await conn.client.readResource({ uri: `file://${at('sub', 'notes.md')}` })).contents[0]!;
      assert.deepEqual(text, { uri: `file://${at('sub', 'notes.md')}`, mimeType: 'text/plain', text: '# Notes\n\n- one\n- two\n' });
      const bin = (await conn.client.readResource({ uri: `file://${at('blob.bin')}` })).contents[0]!;
      assert.ok('blob' in bin && Buffer.from(bin.blob, 'base64').equals(Buffer.from([0, 1, 2, 3, 254, 255])));
      assert.equal(bin.mimeType, 'application/octet-stream');
      // Percent-encoded names (a space) resolve to the file they name.
      await fs.writeFile(at('with space.txt'), 'spaced');
      const spaced = (await conn.client.readResource({ uri: `file://${at('with%20space.txt')}` })).contents[0]!;
      assert.ok('text' in spaced && spaced.text === 'spaced');
    });
  });
}
