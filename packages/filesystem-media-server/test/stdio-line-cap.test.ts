// A stock SDK stdio client (as a desktop host launches this server) reads at most 10 MiB of one JSON line and
// drops the whole connection past that. An image whose base64 would be longer comes back as a tool error
// saying why, with one stderr line, and the connection goes on; a MessagePack client gets the image.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { StdioMsgpackClientTransport } from 'mcp-msgpack-transport';
import { call, connectOver, LIMIT, OUR_CLI, textOf } from './helpers/client.js';

const MiB = 1024 * 1024;

describe('stdio: a reply over the stock client line limit', { timeout: 3 * LIMIT }, () => {
  let dir: string;
  let big: Buffer;
  let small: Buffer;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'fsms-line-cap-'));
    // 8 MiB: 10.67 MiB as base64, over the SDKs' 10 MiB line.
    big = randomBytes(8 * MiB);
    small = randomBytes(1000);
    await writeFile(path.join(dir, 'big.png'), big);
    await writeFile(path.join(dir, 'small.png'), small);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('answers a stock JSON client with a tool error and one stderr line, and keeps the connection', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [OUR_CLI, dir], stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const conn = await connectOver(transport);
    try {
      const result = await call(conn.client, 'read_media_file', { path: path.join(dir, 'big.png') });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /the reply is 10\.67 MiB as one JSON line, over the 9\.94 MiB a stdio JSON client reads/);
      const lines = stderr.split('\n').filter((line) => /JSON line/.test(line));
      assert.equal(lines.length, 1, stderr);
      // Still connected: the next call is answered.
      const next = await call(conn.client, 'read_media_file', { path: path.join(dir, 'small.png') });
      const block = next.content[0] as Extract<CallToolResult['content'][number], { type: 'image' }>;
      assert.ok(Buffer.from(block.data, 'base64').equals(small));
    } finally {
      await conn.close();
    }
  });

  it('sends the image to a MessagePack client, which has no such limit', async () => {
    const conn = await connectOver(new StdioMsgpackClientTransport({ command: process.execPath, args: [OUR_CLI, dir], stderr: 'ignore', wire: 'msgpack' }));
    try {
      const result = await call(conn.client, 'read_media_file', { path: path.join(dir, 'big.png') });
      assert.notEqual(result.isError, true, textOf(result));
      const block = result.content[0] as Extract<CallToolResult['content'][number], { type: 'image' }>;
      assert.ok(Buffer.from(block.data, 'base64').equals(big));
    } finally {
      await conn.close();
    }
  });
});
