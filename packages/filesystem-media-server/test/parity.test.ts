// Behaviour parity with the official server: the same calls over JSON stdio (the SDK Client with the SDK's
// StdioClientTransport) to @modelcontextprotocol/server-filesystem and to ours, on the same directory.
// Results must be equal, except the differences the README documents (asserted here as such).
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { call, connectOver, LIMIT, OFFICIAL_SERVER, OUR_CLI, type Connected } from './helpers/client.js';
import { makeLayout, type Layout } from './helpers/layout.js';

let layout: Layout;
let official: Connected;
let ours: Connected;

function spawnServer(entry: string, dir: string): StdioClientTransport {
  return new StdioClientTransport({ command: process.execPath, args: [entry, dir], stderr: 'ignore' });
}

before(async () => {
  layout = await makeLayout();
  await fs.writeFile(path.join(layout.allowed, 'crlf.txt'), 'one\r\ntwo\r\nthree\r\n');
  await fs.writeFile(path.join(layout.allowed, 'empty.txt'), '');
  await fs.writeFile(path.join(layout.allowed, 'big.log'), 'x'.repeat(5000) + '\n' + 'y'.repeat(3000));
  // Symlinks that stay inside: both servers follow them for reads and show them as files in listings.
  await fs.symlink(path.join(layout.allowed, 'hello.txt'), path.join(layout.allowed, 'link-to-hello.txt'));
  await fs.symlink(path.join(layout.allowed, 'sub'), path.join(layout.allowed, 'link-to-sub'));
  for (const side of ['official', 'ours']) {
    await fs.mkdir(path.join(layout.allowed, side));
    await fs.writeFile(path.join(layout.allowed, side, 'edit-me.ts'), 'const a = 1;\n  if (a) {\n    run();\n  }\n');
    await fs.writeFile(path.join(layout.allowed, side, 'to-move.txt'), 'moving');
    await fs.writeFile(path.join(layout.allowed, side, 'target.txt'), 'target');
    await fs.symlink(path.join(layout.allowed, side, 'target.txt'), path.join(layout.allowed, side, 'link.txt'));
  }
  official = await connectOver(spawnServer(OFFICIAL_SERVER, layout.allowed));
  ours = await connectOver(spawnServer(OUR_CLI, layout.allowed));
});
after(async () => {
  await official?.close();
  await ours?.close();
  await layout?.cleanup();
});

type Result = Pick<CallToolResult, 'content' | 'structuredContent' | 'isError'>;

function comparable(result: CallToolResult, side: string): Result {
  // Write calls run in per-side subdirectories; name them alike before comparing.
  const text = JSON.stringify({ content: result.content, structuredContent: result.structuredContent, isError: result.isError ?? false });
  return JSON.parse(text.split(`/${side}/`).join('/SIDE/').split(`/${side}"`).join('/SIDE"')) as Result;
}

async function both(name: string, args: (side: string) => Record<string, unknown>): Promise<[Result, Result]> {
  const a = await call(official.client, name, args('official'));
  const b = await call(ours.client, name, args('ours'));
  return [comparable(a, 'official'), comparable(b, 'ours')];
}

async function assertSame(name: string, args: Record<string, unknown> | ((side: string) => Record<string, unknown>)): Promise<Result> {
  const [a, b] = await both(name, typeof args === 'function' ? args : () => args);
  assert.deepEqual(b, a, `${name} ${JSON.stringify(typeof args === 'function' ? args('ours') : args)} differs`);
  return b;
}

const at = (...parts: string[]) => path.join(layout.allowed, ...parts);

/**
 * A tool's input schema without descriptions (ours are worded independently) and without `$schema`: SDK v2
 * (ours) writes JSON Schema 2020-12, SDK v1 (the official server) draft-07; the keywords these schemas use
 * (type, properties, required, items, enum, default, additionalProperties) mean the same in both.
 */
function shapeOf(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema), (key, value) => (key === 'description' || key === '$schema' ? undefined : value));
}

/** An output schema without `$schema` (the dialect, as above). */
function withoutDialect(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema ?? null), (key, value) => (key === '$schema' ? undefined : value));
}

describe('parity with @modelcontextprotocol/server-filesystem over JSON stdio', { timeout: LIMIT * 4 }, () => {
  it('metadata calls first (before reads move access times): get_file_info', async () => {
    for (const p of ['hello.txt', 'sub', 'pixel.png', 'empty.txt', 'link-to-hello.txt', 'link-to-sub']) await assertSame('get_file_info', { path: at(p) });
  });

  it('the same 14 tools with the same input schemas, titles and annotations', async () => {
    const list = async (c: Connected) => new Map((await c.client.listTools()).tools.map((t: Tool) => [t.name, t]));
    const [theirs, mine] = [await list(official), await list(ours)];
    assert.deepEqual([...mine.keys()].sort(), [...theirs.keys()].sort());
    assert.equal(mine.size, 14);
    for (const [name, tool] of theirs) {
      const own = mine.get(name)!;
      const ownInput = shapeOf(own.inputSchema) as { properties: Record<string, unknown> };
      if (name === 'read_media_file') {
        // Documented: one extra optional property, `as`.
        assert.deepEqual(Object.keys(ownInput.properties).sort(), ['as', 'path']);
        delete ownInput.properties['as'];
      }
      assert.deepEqual(ownInput, shapeOf(tool.inputSchema), `${name} input schema`);
      assert.deepEqual(own.annotations, tool.annotations, `${name} annotations`);
      assert.equal(own.title, tool.title, `${name} title`);
      if (name !== 'read_media_file') assert.deepEqual(withoutDialect(own.outputSchema), withoutDialect(tool.outputSchema), `${name} output schema`);
    }
  });

  it('listing and searching', async () => {
    await assertSame('list_allowed_directories', {});
    await assertSame('list_directory', { path: layout.allowed });
    await assertSame('list_directory', { path: at('sub') });
    await assertSame('list_directory_with_sizes', { path: layout.allowed });
    await assertSame('list_directory_with_sizes', { path: layout.allowed, sortBy: 'size' });
    await assertSame('directory_tree', { path: layout.allowed });
    await assertSame('directory_tree', { path: layout.allowed, excludePatterns: ['sub'] });
    await assertSame('directory_tree', { path: layout.allowed, excludePatterns: ['**/*.json', '*.png'] });
    await assertSame('search_files', { path: layout.allowed, pattern: '**/*.md' });
    await assertSame('search_files', { path: layout.allowed, pattern: '*.txt' });
    await assertSame('search_files', { path: at('sub'), pattern: '**/*' });
    await assertSame('search_files', { path: at('sub'), pattern: '**/*', excludePatterns: ['deeper/**'] });
    await assertSame('search_files', { path: layout.allowed, pattern: '**/*.json', excludePatterns: ['**/deeper'] });
    await assertSame('search_files', { path: layout.allowed, pattern: '**/nothing-*' });
    await assertSame('search_files', { path: layout.allowed, pattern: 'link-*' });
    await assertSame('search_files', { path: layout.allowed, pattern: '**/*.md' });
    await assertSame('list_directory', { path: at('link-to-sub') });
    await assertSame('directory_tree', { path: at('link-to-sub') });
  });

  it('reading text', async () => {
    await assertSame('read_text_file', { path: at('hello.txt') });
    await assertSame('read_file', { path: at('hello.txt') });
    await assertSame('read_text_file', { path: 'hello.txt' });
    await assertSame('read_text_file', { path: 'sub/notes.md' });
    await assertSame('read_text_file', { path: at('link-to-hello.txt') });
    await assertSame('read_text_file', { path: at('link-to-sub', 'notes.md') });
    await assertSame('read_text_file', { path: at('lines.txt'), head: 0 });
    await assertSame('read_text_file', { path: at('lines.txt'), head: 3 });
    await assertSame('read_text_file', { path: at('lines.txt'), tail: 4 });
    await assertSame('read_text_file', { path: at('lines.txt'), head: 100 });
    await assertSame('read_text_file', { path: at('lines.txt'), tail: 100 });
    await assertSame('read_text_file', { path: at('crlf.txt'), head: 2 });
    await assertSame('read_text_file', { path: at('crlf.txt'), tail: 2 });
    await assertSame('read_text_file', { path: at('big.log'), tail: 1 });
    await assertSame('read_text_file', { path: at('big.log'), head: 1 });
    await assertSame('read_text_file', { path: at('empty.txt') });
    await assertSame('read_text_file', { path: at('empty.txt'), tail: 3 });
    await assertSame('read_text_file', { path: at('lines.txt'), head: 2, tail: 2 });
    await assertSame('read_multiple_files', { paths: [at('hello.txt'), at('sub', 'notes.md'), at('missing.txt')] });
    // More files than are read at once: same order, same text.
    const many = Array.from({ length: 40 }, (_, i) => [at('hello.txt'), at('lines.txt'), at(`missing-${i}.txt`), at('sub', 'notes.md')][i % 4]!);
    await assertSame('read_multiple_files', { paths: many });
  });

  it('edit_file dryRun gives the same diff and leaves the file alone', async () => {
    const edits = [
      { oldText: 'const a = 1;', newText: 'const a = 2;' },
      { oldText: 'if (a) {\n  run();\n}', newText: 'if (a) {\n  run();\n  again();\n}' },
    ];
    await assertSame('edit_file', (side) => ({ path: at(side, 'edit-me.ts'), edits, dryRun: true }));
    await assertSame('edit_file', { path: at('code.ts'), edits: [{ oldText: 'return "hi";', newText: 'return "```";' }], dryRun: true });
    await assertSame('edit_file', { path: at('code.ts'), edits: [{ oldText: 'not there', newText: 'x' }], dryRun: true });
    assert.equal(await fs.readFile(at('ours', 'edit-me.ts'), 'utf8'), 'const a = 1;\n  if (a) {\n    run();\n  }\n');
  });

  it('writing, editing, creating and moving (each server in its own subdirectory)', async () => {
    await assertSame('write_file', (side) => ({ path: at(side, 'new.txt'), content: 'fresh\ncontent\n' }));
    await assertSame('write_file', (side) => ({ path: at(side, 'new.txt'), content: 'replaced' }));
    await assertSame('read_text_file', (side) => ({ path: at(side, 'new.txt') }));
    await assertSame('edit_file', (side) => ({ path: at(side, 'edit-me.ts'), edits: [{ oldText: 'run();', newText: 'walk();' }] }));
    assert.equal(await fs.readFile(at('ours', 'edit-me.ts'), 'utf8'), await fs.readFile(at('official', 'edit-me.ts'), 'utf8'));
    await assertSame('create_directory', (side) => ({ path: at(side, 'a', 'b', 'c') }));
    await assertSame('create_directory', (side) => ({ path: at(side, 'a') }));
    await assertSame('move_file', (side) => ({ source: at(side, 'to-move.txt'), destination: at(side, 'a', 'moved.txt') }));
    await assertSame('move_file', (side) => ({ source: at(side, 'new.txt'), destination: at(side, 'a', 'moved.txt') }));
    // Writing through a symlink that stays inside replaces its target; the link stays a link.
    await assertSame('write_file', (side) => ({ path: at(side, 'link.txt'), content: 'through the link' }));
    await assertSame('edit_file', (side) => ({ path: at(side, 'link.txt'), edits: [{ oldText: 'the link', newText: 'a link' }] }));
    // Replacing a file keeps its permission bits.
    for (const side of ['official', 'ours']) await fs.chmod(at(side, 'target.txt'), 0o640);
    await assertSame('write_file', (side) => ({ path: at(side, 'target.txt'), content: 'through the link' }));
    await assertSame('edit_file', (side) => ({ path: at(side, 'target.txt'), edits: [{ oldText: 'the link', newText: 'a link' }] }));
    for (const side of ['official', 'ours']) {
      assert.equal((await fs.stat(at(side, 'target.txt'))).mode & 0o777, 0o640, side);
      assert.equal(await fs.readFile(at(side, 'target.txt'), 'utf8'), 'through a link');
      assert.ok((await fs.lstat(at(side, 'link.txt'))).isSymbolicLink());
    }
    await assertSame('directory_tree', (side) => ({ path: at(side) }));
  });

  it('errors: outside paths and missing files', async () => {
    await assertSame('read_text_file', { path: layout.secretFile });
    await assertSame('list_directory', { path: layout.outside });
    await assertSame('read_text_file', { path: at('missing.txt') });
    await assertSame('get_file_info', { path: at('missing.txt') });
    await assertSame('write_file', (side) => ({ path: at(side, 'no', 'such', 'file.txt'), content: 'x' }));
    await assertSame('move_file', (side) => ({ source: at(side, 'absent.txt'), destination: at(side, 'elsewhere.txt') }));
    await assertSame('move_file', (side) => ({ source: at(side, 'edit-me.ts'), destination: at(side, 'a') }));
    await assertSame('edit_file', (side) => ({ path: at(side, 'absent.ts'), edits: [] }));
    await assertSame('list_directory', { path: at('missing-dir') });
    await assertSame('read_text_file', { path: at('sub') });
    await assertSame('list_directory', { path: at('hello.txt') });
  });

  it('read_media_file: same content blocks; structuredContent holds metadata instead of a second copy', async () => {
    for (const [file, mimeType] of [
      ['pixel.png', 'image/png'],
      ['sound.wav', 'audio/wav'],
      ['blob.bin', 'application/octet-stream'],
    ] as const) {
      const [theirs, mine] = await both('read_media_file', () => ({ path: at(file) }));
      assert.deepEqual(mine.content, theirs.content, `${file} content`);
      assert.deepEqual(theirs.structuredContent, { content: theirs.content }, 'the official server repeats the media');
      const size = (await fs.stat(at(file))).size;
      assert.deepEqual(mine.structuredContent, { path: at(file), uri: `file://${at(file)}`, mimeType, size });
    }
  });
});
