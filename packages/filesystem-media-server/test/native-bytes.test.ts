// Native bytes: with the extension negotiated, read_media_file and resources/read send the file as
// MessagePack bin (no base64 on the wire), checked by counting the bytes the server writes; without it,
// base64. Also: a file whose base64 form would pass the 64 MiB message cap is refused to base64 clients
// with a reason, and served to a native-bytes client.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { callToolNative, HttpMsgpackClientTransport, readResourceNative, StdioMsgpackClientTransport, type SpawnFunction } from 'mcp-msgpack-transport';
import { call, connectOver, LIMIT, OUR_CLI, textOf, type Connected } from './helpers/client.js';
import { spawnHttpServer, type SpawnedHttpServer } from './helpers/http-server.js';
import { makeLayout, type Layout } from './helpers/layout.js';

const MEDIA_BYTES = 300 * 1024;
const HUGE_BYTES = 50 * 1024 * 1024;

let layout: Layout;
let media: Buffer;
let mediaPath: string;
let http: SpawnedHttpServer;

before(async () => {
  layout = await makeLayout();
  media = randomBytes(MEDIA_BYTES);
  mediaPath = path.join(layout.allowed, 'photo.png');
  await fs.writeFile(mediaPath, media);
  http = await spawnHttpServer([layout.allowed]);
});
after(async () => {
  await http?.stop();
  await layout?.cleanup();
});

/** spawn() that counts what the child writes on stdout. */
function countingSpawn(counter: { bytes: number }): SpawnFunction {
  return (command, args, options) => {
    const child = spawn(command, args, options);
    child.stdout!.on('data', (chunk: Buffer) => (counter.bytes += chunk.length));
    return child;
  };
}

/** The server's stderr, kept so a failure can show why the child went away. */
let serverStderr = '';

async function stdioMsgpack(nativeBytes: boolean, counter = { bytes: 0 }): Promise<Connected> {
  const transport = new StdioMsgpackClientTransport({ command: process.execPath, args: [OUR_CLI, layout.allowed], stderr: 'pipe', wire: 'msgpack', nativeBytes, spawn: countingSpawn(counter) });
  serverStderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (serverStderr += chunk.toString()));
  transport.onerror = (error) => (serverStderr += `\n[client transport error] ${error.message}`);
  return explained(() => connectOver(transport));
}

/** Runs `body`, adding the server's stderr to any failure. */
async function explained<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    (error as Error).message += `\nserver stderr: ${serverStderr}`;
    throw error;
  }
}

describe('native bytes', { timeout: LIMIT * 3 }, () => {
  it('stdio, negotiated: the media crosses as bin (wire bytes about the file size) and arrives as a Uint8Array', async () => {
    const counter = { bytes: 0 };
    const conn = await stdioMsgpack(true, counter);
    try {
      const before = counter.bytes;
      const result = await explained(() => callToolNative(conn.client, { name: 'read_media_file', arguments: { path: mediaPath } }, { timeout: LIMIT }));
      const wire = counter.bytes - before;
      const block = result.content[0]!;
      assert.equal(block.type, 'image');
      assert.ok(block.type === 'image' && block.data instanceof Uint8Array && Buffer.from(block.data).equals(media));
      assert.ok(wire >= MEDIA_BYTES && wire < MEDIA_BYTES + 1024, `response was ${wire} bytes for ${MEDIA_BYTES} bytes of media`);
      assert.deepEqual(result.structuredContent, { path: mediaPath, uri: `file://${mediaPath}`, mimeType: 'image/png', size: MEDIA_BYTES });

      const resourceBefore = counter.bytes;
      const resource = await readResourceNative(conn.client, { uri: `file://${mediaPath}` }, { timeout: LIMIT });
      const contents = resource.contents[0]!;
      assert.ok('blob' in contents && contents.blob instanceof Uint8Array && Buffer.from(contents.blob).equals(media));
      assert.ok(counter.bytes - resourceBefore < MEDIA_BYTES + 1024);

      // The ordinary SDK call on the same connection still gets what the SDK accepts: base64.
      const plain = await call(conn.client, 'read_media_file', { path: mediaPath });
      const plainBlock = plain.content[0]!;
      assert.ok(plainBlock.type === 'image' && Buffer.from(plainBlock.data, 'base64').equals(media));
    } finally {
      await conn.close();
    }
  });

  it('stdio, not negotiated: base64 (a third larger on the wire)', async () => {
    const counter = { bytes: 0 };
    const conn = await stdioMsgpack(false, counter);
    try {
      const before = counter.bytes;
      const result = await explained(() => call(conn.client, 'read_media_file', { path: mediaPath }));
      const wire = counter.bytes - before;
      const block = result.content[0]!;
      assert.ok(block.type === 'image' && Buffer.from(block.data, 'base64').equals(media));
      assert.ok(wire >= (MEDIA_BYTES * 4) / 3, `response was ${wire} bytes, expected base64`);
    } finally {
      await conn.close();
    }
  });

  it('HTTP, negotiated: bytes arrive as a Uint8Array', async () => {
    // Bytes, not base64, in the result below show that the extension was negotiated.
    const conn = await connectOver(new HttpMsgpackClientTransport(http.url, { wire: 'msgpack', nativeBytes: true }));
    try {
      const result = await callToolNative(conn.client, { name: 'read_media_file', arguments: { path: mediaPath } }, { timeout: LIMIT });
      const block = result.content[0]!;
      assert.ok(block.type === 'image' && block.data instanceof Uint8Array && Buffer.from(block.data).equals(media));
      const other = await callToolNative(conn.client, { name: 'read_media_file', arguments: { path: path.join(layout.allowed, 'blob.bin') } }, { timeout: LIMIT });
      const resourceBlock = other.content[0]!;
      assert.ok(resourceBlock.type === 'resource' && 'blob' in resourceBlock.resource && resourceBlock.resource.blob instanceof Uint8Array);
    } finally {
      await conn.close();
    }
  });

  it('files are read into reused buffers: many reads in flight each get their own file, and a rewritten file is read fresh', async () => {
    const files = await Promise.all(
      [0, 1, 2].map(async (i) => {
        const file = { path: path.join(layout.allowed, `pooled-${i}.png`), bytes: randomBytes(3 * 1024 * 1024 + i * 4096) };
        await fs.writeFile(file.path, file.bytes);
        return file;
      }),
    );
    const native = await connectOver(new HttpMsgpackClientTransport(http.url, { wire: 'msgpack', nativeBytes: true }));
    const json = await connectOver(new StdioClientTransport({ command: process.execPath, args: [OUR_CLI, layout.allowed], stderr: 'ignore' }));
    try {
      for (let round = 0; round < 2; round++) {
        // Four calls in flight on each connection, twelve in all, the three files taking turns.
        await Promise.all(
          Array.from({ length: 4 }, async (_, worker) => {
            for (let k = 0; k < 3; k++) {
              const file = files[(worker + k) % files.length]!;
              const bytes = await callToolNative(native.client, { name: 'read_media_file', arguments: { path: file.path } }, { timeout: LIMIT });
              const block = bytes.content[0]!;
              assert.ok(block.type === 'image' && Buffer.from(block.data).equals(file.bytes), `${file.path} over HTTP (native bytes)`);
              const text = await call(json.client, 'read_media_file', { path: file.path });
              const textBlock = text.content[0]!;
              assert.ok(textBlock.type === 'image' && Buffer.from(textBlock.data, 'base64').equals(file.bytes), `${file.path} over stdio (JSON)`);
            }
          }),
        );
        files[0]!.bytes = randomBytes(files[0]!.bytes.length);
        await fs.writeFile(files[0]!.path, files[0]!.bytes);
      }
    } finally {
      await native.close();
      await json.close();
      await Promise.all(files.map((file) => fs.unlink(file.path)));
    }
  });

  it('media too big for base64 is refused to JSON clients with a reason, and served to native-bytes clients', async () => {
    const huge = path.join(layout.allowed, 'huge.wav');
    const handle = await fs.open(huge, 'w');
    await handle.truncate(HUGE_BYTES);
    await handle.close();
    try {
      const json = await connectOver(new StdioClientTransport({ command: process.execPath, args: [OUR_CLI, layout.allowed], stderr: 'ignore' }));
      try {
        const refused = await call(json.client, 'read_media_file', { path: huge });
        assert.equal(refused.isError, true);
        assert.match(textOf(refused), /as base64 it would be 66\.67 MiB, over the 64\.00 MiB message limit/);
        assert.equal((await call(json.client, 'list_allowed_directories')).isError, undefined);
      } finally {
        await json.close();
      }
      const native = await stdioMsgpack(true);
      try {
        const result = await callToolNative(native.client, { name: 'read_media_file', arguments: { path: huge } }, { timeout: LIMIT });
        const block = result.content[0]!;
        assert.ok(block.type === 'audio' && block.data instanceof Uint8Array);
        assert.equal(block.type === 'audio' ? block.data.byteLength : 0, HUGE_BYTES);
      } finally {
        await native.close();
      }
    } finally {
      await fs.unlink(huge);
    }
  });
});
