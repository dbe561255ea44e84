// Bad input: each gets a clear MCP error (an isError tool result, or a JSON-RPC error for resources), and
// the server stays up: the call after it still works. Over stdio too, with a real child process.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioMsgpackClientTransport, type SpawnFunction } from 'mcp-msgpack-transport';
import { call, connectInProcess, connectOver, LIMIT, OUR_CLI, textOf, type Connected } from './helpers/client.js';
import { makeLayout, type Layout } from './helpers/layout.js';

let layout: Layout;
let conn: Connected;
const MEDIA_LIMIT = 1000;

before(async () => {
  layout = await makeLayout();
  await fs.writeFile(path.join(layout.allowed, 'large.png'), Buffer.alloc(MEDIA_LIMIT + 1, 7));
  await fs.writeFile(path.join(layout.allowed, 'exactly.png'), Buffer.alloc(MEDIA_LIMIT, 7));
  conn = await connectInProcess([layout.allowed], { maxMediaBytes: MEDIA_LIMIT });
});
after(async () => {
  await conn?.close();
  await layout?.cleanup();
});

const at = (...parts: string[]) => path.join(layout.allowed, ...parts);

/** The call fails with a message matching `pattern`, and a plain read right after still works. */
async function failsClearly(name: string, args: Record<string, unknown>, pattern: RegExp, c: Connected = conn): Promise<void> {
  const result = await call(c.client, name, args);
  assert.equal(result.isError, true, `${name} ${JSON.stringify(args)} should fail: ${textOf(result)}`);
  assert.match(textOf(result), pattern);
  const next = await call(c.client, 'read_text_file', { path: at('hello.txt') });
  assert.equal(textOf(next), 'hello\nworld\n', 'the server must keep working after a bad call');
}

describe('bad input gives clear errors and the server stays up', { timeout: LIMIT * 2 }, () => {
  it('missing paths', async () => {
    await failsClearly('read_text_file', { path: at('nope.txt') }, /ENOENT: no such file or directory, open '.*nope\.txt'/);
    await failsClearly('read_media_file', { path: at('nope.png') }, /ENOENT/);
    await failsClearly('list_directory', { path: at('nope') }, /ENOENT/);
    await failsClearly('get_file_info', { path: at('nope') }, /ENOENT: no such file or directory, stat/);
    await failsClearly('write_file', { path: at('no', 'such', 'dir.txt'), content: 'x' }, /ENOENT: no such file or directory, open '.*dir\.txt'/);
    await failsClearly('move_file', { source: at('nope.txt'), destination: at('x.txt') }, /ENOENT/);
    await failsClearly('edit_file', { path: at('nope.txt'), edits: [] }, /ENOENT/);
  });

  it('unreadable files (as root: the server runs without the capabilities that override file modes)', async () => {
    const locked = at('locked.txt');
    await fs.writeFile(locked, 'private');
    await fs.chmod(locked, 0);
    // Root reads anything through CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH, so as root the server is started
    // without them (setpriv, from util-linux). It stays root, so it still reads the checkout wherever it is,
    // even in a 0700 directory another user could not enter.
    const asRoot = process.getuid?.() === 0;
    let c = conn;
    if (asRoot) {
      const withoutDacOverride: SpawnFunction = (command, args, options) => spawn('setpriv', ['--bounding-set', '-dac_override,-dac_read_search', '--', command, ...args], options);
      c = await connectOver(new StdioMsgpackClientTransport({ command: process.execPath, args: [OUR_CLI, layout.allowed], wire: 'json', stderr: 'inherit', spawn: withoutDacOverride }));
    }
    try {
      await failsClearly('read_text_file', { path: locked }, /EACCES: permission denied, open '.*locked\.txt'/, c);
      await failsClearly('read_media_file', { path: locked }, /EACCES/, c);
      await failsClearly('edit_file', { path: locked, edits: [{ oldText: 'p', newText: 'q' }] }, /EACCES/, c);
      // Metadata needs no read permission, as in the official server.
      const info = await call(c.client, 'get_file_info', { path: locked });
      assert.match(textOf(info), /permissions: 000/);
    } finally {
      if (asRoot) await c.close();
      await fs.chmod(locked, 0o600);
    }
  });

  it('directories passed as files, files as directories', async () => {
    await failsClearly('read_text_file', { path: at('sub') }, /EISDIR/);
    await failsClearly('read_media_file', { path: at('sub') }, /EISDIR/);
    await failsClearly('edit_file', { path: at('sub'), edits: [{ oldText: 'a', newText: 'b' }] }, /EISDIR/);
    await failsClearly('write_file', { path: at('sub'), content: 'x' }, /EISDIR/);
    await failsClearly('list_directory', { path: at('hello.txt') }, /ENOTDIR/);
    await failsClearly('directory_tree', { path: at('hello.txt') }, /ENOTDIR/);
    await failsClearly('create_directory', { path: at('hello.txt', 'child') }, /ENOTDIR|EEXIST/);
    await failsClearly('move_file', { source: at('hello.txt'), destination: at('sub') }, /Destination already exists/);
  });

  it('files over the media limit are refused before reading, with the limit in the message', async () => {
    await failsClearly('read_media_file', { path: at('large.png') }, /1001 bytes\), over this server's media limit of .* \(1000 bytes\)/);
    await assert.rejects(conn.client.readResource({ uri: `file://${at('large.png')}` }), /media limit/);
    const exactly = await call(conn.client, 'read_media_file', { path: at('exactly.png') });
    assert.equal(exactly.isError, undefined);
    // A link is fine: it does not carry the bytes.
    const link = await call(conn.client, 'read_media_file', { path: at('large.png'), as: 'resource_link' });
    assert.equal(link.isError, undefined);
  });

  it('binary files to read_text_file are refused (documented), not returned as garbage', async () => {
    await failsClearly('read_text_file', { path: at('blob.bin') }, /binary file .*read_media_file/);
    await failsClearly('read_text_file', { path: at('pixel.png'), head: 1 }, /binary file/);
    const multi = await call(conn.client, 'read_multiple_files', { paths: [at('blob.bin'), at('hello.txt')] });
    assert.match(textOf(multi), /blob\.bin: Error - .*binary file/);
    assert.match(textOf(multi), /hello\.txt:\nhello\nworld\n/);
  });

  it('special files (a FIFO) are refused without hanging', { skip: !hasMkfifo() }, async () => {
    const fifo = at('pipe');
    spawnSync('mkfifo', [fifo]);
    try {
      await failsClearly('read_text_file', { path: fifo }, /Not a regular file/);
      await failsClearly('read_media_file', { path: fifo }, /Not a regular file/);
      await failsClearly('write_file', { path: fifo, content: 'x' }, /Not a regular file/);
    } finally {
      await fs.unlink(fifo);
    }
  });

  it('a failed write (file size limit hit) keeps the old file and leaves no temporary file', { skip: process.platform === 'win32' }, async () => {
    const target = at('keep.txt');
    await fs.writeFile(target, 'old content');
    // The server runs under `ulimit -f 2` (1 KiB): writing more fails part-way with EFBIG.
    const limited = await connectOver(
      new StdioMsgpackClientTransport({ command: '/bin/sh', args: ['-c', `ulimit -f 2; exec "${process.execPath}" "${OUR_CLI}" "${layout.allowed}"`], wire: 'json', stderr: 'ignore' }),
    );
    try {
      const before = (await fs.readdir(layout.allowed)).sort();
      await failsClearly('write_file', { path: target, content: 'x'.repeat(20_000) }, /EFBIG: file too large, write '.*keep\.txt'/, limited);
      await failsClearly('write_file', { path: at('brand-new.txt'), content: 'x'.repeat(20_000) }, /EFBIG/, limited);
      await failsClearly('edit_file', { path: target, edits: [{ oldText: 'old', newText: 'x'.repeat(20_000) }] }, /EFBIG/, limited);
      assert.equal(await fs.readFile(target, 'utf8'), 'old content');
      assert.deepEqual((await fs.readdir(layout.allowed)).sort(), before, 'no partial or temporary file may remain');
      const small = await call(limited.client, 'write_file', { path: target, content: 'new content' });
      assert.equal(small.isError, undefined);
      assert.equal(await fs.readFile(target, 'utf8'), 'new content');
    } finally {
      await limited.close();
    }
  });

  it('malformed tool arguments', async () => {
    await failsClearly('read_text_file', {}, /Input validation error/);
    await failsClearly('read_text_file', { path: 42 }, /Input validation error/);
    await failsClearly('read_text_file', { path: at('hello.txt'), head: 'ten' }, /Input validation error/);
    await failsClearly('read_text_file', { path: at('lines.txt'), head: 2, tail: 2 }, /Cannot specify both head and tail/);
    await failsClearly('read_multiple_files', { paths: [] }, /Input validation error/);
    await failsClearly('edit_file', { path: at('hello.txt'), edits: [{ old: 'x' }] }, /Input validation error/);
    await failsClearly('edit_file', { path: at('hello.txt'), edits: [{ oldText: 'absent', newText: 'x' }] }, /Could not find exact match/);
    await failsClearly('list_directory_with_sizes', { path: layout.allowed, sortBy: 'date' }, /Input validation error/);
    await failsClearly('read_media_file', { path: at('pixel.png'), as: 'carrier-pigeon' }, /Input validation error/);
    await failsClearly('move_file', { source: at('hello.txt') }, /Input validation error/);
    await failsClearly('read_text_file', { path: '' }, /empty path/);
    // SDK v2 (as MCP 2025-11-25 says) answers an unknown tool with a JSON-RPC error, not a tool error result.
    await assert.rejects(call(conn.client, 'no_such_tool', {}), (error: { code?: number; message?: string }) => {
      assert.equal(error.code, -32602);
      assert.match(String(error.message), /Tool no_such_tool not found/);
      return true;
    });
    assert.equal(textOf(await call(conn.client, 'read_text_file', { path: at('hello.txt') })), 'hello\nworld\n', 'still serving');
  });

  it('over real stdio: malformed arguments, missing files and denied resources leave the process serving', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [OUR_CLI, layout.allowed], stderr: 'ignore' });
    const stdio = await connectOver(transport);
    try {
      await failsClearly('read_text_file', { path: 7 }, /Input validation error/, stdio);
      await failsClearly('read_text_file', { path: at('nope') }, /ENOENT/, stdio);
      await assert.rejects(stdio.client.readResource({ uri: 'file:///etc/passwd' }), /Access denied/);
      await failsClearly('read_text_file', { path: at('blob.bin') }, /binary/, stdio);
    } finally {
      await stdio.close();
    }
  });
});

function hasMkfifo(): boolean {
  return spawnSync('mkfifo', ['--version']).status === 0;
}
