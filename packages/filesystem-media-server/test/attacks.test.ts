// Every attack class from the official server's security history, each actually attempted against a temp
// layout with a secret outside the allowed directory. Each call must come back as an MCP error, the secret
// must never appear in a response, and nothing outside may be created, changed or moved.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { StdioMsgpackClientTransport } from 'mcp-msgpack-transport';
import { call, connectInProcess, connectOver, LIMIT, OUR_CLI, textOf, type Connected } from './helpers/client.js';
import { makeLayout, outsideUntouched, SECRET, type Layout } from './helpers/layout.js';

const SECRET_B64 = Buffer.from(SECRET).toString('base64');

let layout: Layout;
let conn: Connected;

before(async () => {
  layout = await makeLayout();
});
after(async () => {
  await layout?.cleanup();
});

/**
 * Two ways to run the server: in-process (Linux: descriptors verified through /proc/self/fd), and as a child
 * process forced onto the portable fallback other platforms use (realpath + device/inode checks).
 */
const servers: { name: string; connect(): Promise<Connected> }[] = [
  { name: 'in-process, /proc/self/fd', connect: () => connectInProcess([layout.allowed]) },
  {
    name: 'child process, portable fallback',
    connect: () => connectOver(new StdioMsgpackClientTransport({ command: process.execPath, args: [OUR_CLI, layout.allowed], env: { MCP_FILESYSTEM_NO_PROC_FD: '1' }, stderr: 'ignore', wire: 'msgpack' })),
  },
];

function assertNoLeak(result: CallToolResult | { contents: unknown[] }, what: string): void {
  const everything = JSON.stringify(result);
  assert.ok(!everything.includes(SECRET) && !everything.includes(SECRET_B64), `${what} leaked the secret: ${everything.slice(0, 300)}`);
}

async function assertDenied(name: string, args: Record<string, unknown>, what = `${name} ${JSON.stringify(args)}`): Promise<string> {
  const result = await call(conn.client, name, args);
  assertNoLeak(result, what);
  assert.equal(result.isError, true, `${what} should fail, got: ${textOf(result).slice(0, 300)}`);
  return textOf(result);
}

async function assertOutsideUntouched(): Promise<void> {
  const { ok, detail } = await outsideUntouched(layout);
  assert.ok(ok, `something outside the allowed directory changed: ${detail}`);
}

/** Every tool that takes one path, tried on `target`: reads must not leak, writes must not land. */
async function attemptEverything(target: string): Promise<void> {
  await assertDenied('read_text_file', { path: target });
  await assertDenied('read_file', { path: target });
  await assertDenied('read_text_file', { path: target, head: 1 });
  await assertDenied('read_text_file', { path: target, tail: 1 });
  await assertDenied('read_media_file', { path: target });
  await assertDenied('read_media_file', { path: target, as: 'resource_link' });
  await assertDenied('get_file_info', { path: target });
  await assertDenied('edit_file', { path: target, edits: [{ oldText: SECRET, newText: 'PWNED' }], dryRun: true });
  await assertDenied('edit_file', { path: target, edits: [{ oldText: SECRET, newText: 'PWNED' }] });
  await assertDenied('write_file', { path: target, content: 'PWNED' });
  await assertDenied('move_file', { source: target, destination: path.join(layout.allowed, 'loot.txt') });
  const multi = await call(conn.client, 'read_multiple_files', { paths: [target] });
  assertNoLeak(multi, `read_multiple_files ${target}`);
  assert.match(textOf(multi), /Error - /);
  await assertOutsideUntouched();
  await assert.rejects(fs.lstat(path.join(layout.allowed, 'loot.txt')), 'nothing may be moved in');
}

for (const server of servers)
  describe(`attack classes (zero escapes), ${server.name}`, { timeout: LIMIT * 3 }, () => {
    before(async () => {
      conn = await server.connect();
    });
    after(async () => {
      await conn?.close();
    });

    it('prefix sibling: /allowed_evil is not inside /allowed (CVE-2025-53110)', async () => {
      await attemptEverything(path.join(layout.evil, 'secret.txt'));
      await assertDenied('list_directory', { path: layout.evil });
      await assertDenied('directory_tree', { path: layout.evil });
      await assertDenied('search_files', { path: layout.evil, pattern: '**' });
      await assertDenied('create_directory', { path: path.join(layout.evil, 'new') });
      await assertDenied('write_file', { path: path.join(layout.evil, 'new.txt'), content: 'PWNED' });
      await assertOutsideUntouched();
    });

    it('file symlink to a secret outside (CVE-2025-53109)', async () => {
      const link = path.join(layout.allowed, 'link-to-secret.txt');
      await fs.symlink(layout.secretFile, link);
      try {
        await attemptEverything(link);
        // The link itself stays as it was: writing must not replace it with content or follow it.
        assert.equal(await fs.readlink(link), layout.secretFile);
      } finally {
        await fs.unlink(link);
      }
    });

    it('directory symlink to a directory outside', async () => {
      const link = path.join(layout.allowed, 'linkdir');
      await fs.symlink(path.join(layout.outside, 'dir'), link);
      try {
        await attemptEverything(path.join(link, 'secret.txt'));
        await assertDenied('list_directory', { path: link });
        await assertDenied('list_directory_with_sizes', { path: link });
        await assertDenied('directory_tree', { path: link });
        await assertDenied('search_files', { path: link, pattern: '**' });
        await assertDenied('create_directory', { path: path.join(link, 'planted') });
        await assertDenied('write_file', { path: path.join(link, 'planted.txt'), content: 'PWNED' });
        await assertDenied('move_file', { source: path.join(layout.allowed, 'hello.txt'), destination: path.join(link, 'moved.txt') });
        // Walking tools see the link but never descend through it or report what is behind it.
        const tree = await call(conn.client, 'directory_tree', { path: layout.allowed });
        assert.ok(!textOf(tree).includes('secret.txt'), 'directory_tree must not descend into a symlink leading outside');
        const found = await call(conn.client, 'search_files', { path: layout.allowed, pattern: '**/*secret*' });
        assert.equal(textOf(found), 'No matches found');
        const sized = await call(conn.client, 'list_directory_with_sizes', { path: layout.allowed });
        assert.equal(sized.isError, undefined);
        await assertOutsideUntouched();
      } finally {
        await fs.unlink(link);
      }
    });

    it('dangling symlink: writing through it must not create the target outside', async () => {
      const link = path.join(layout.allowed, 'dangling.txt');
      const wouldBe = path.join(layout.outside, 'created-through-link.txt');
      await fs.symlink(wouldBe, link);
      try {
        await assertDenied('write_file', { path: link, content: 'PWNED' });
        await assertDenied('read_text_file', { path: link });
        await assertDenied('edit_file', { path: link, edits: [{ oldText: 'a', newText: 'b' }] });
        await assertDenied('create_directory', { path: link });
        await assert.rejects(fs.lstat(wouldBe));
        await assertOutsideUntouched();
      } finally {
        await fs.unlink(link);
      }
    });

    it('symlink chain: inside -> inside -> outside', async () => {
      const first = path.join(layout.allowed, 'chain1');
      const second = path.join(layout.allowed, 'sub', 'chain2');
      await fs.symlink(second, first);
      await fs.symlink(layout.secretFile, second);
      const dirFirst = path.join(layout.allowed, 'dchain1');
      const dirSecond = path.join(layout.allowed, 'sub', 'dchain2');
      await fs.symlink(dirSecond, dirFirst);
      await fs.symlink(path.join(layout.outside, 'dir'), dirSecond);
      try {
        await attemptEverything(first);
        await attemptEverything(path.join(dirFirst, 'secret.txt'));
        await assertDenied('list_directory', { path: dirFirst });
        await assertDenied('write_file', { path: path.join(dirFirst, 'planted.txt'), content: 'PWNED' });
      } finally {
        for (const l of [first, second, dirFirst, dirSecond]) await fs.unlink(l);
      }
    });

    it('quotes and whitespace are part of the name, never stripped into another path (GHSA-7rgq-gccq-qphx)', async () => {
      // A sibling literally named `allowed'` holding a secret: `/x/allowed'` must not be taken as `/x/allowed`.
      const quoted = `${layout.allowed}'`;
      await fs.mkdir(quoted);
      await fs.writeFile(path.join(quoted, 'secret.txt'), SECRET);
      try {
        await assertDenied('list_directory', { path: quoted });
        await assertDenied('read_text_file', { path: path.join(quoted, 'secret.txt') });
        await assertDenied('write_file', { path: path.join(quoted, 'x.txt'), content: 'PWNED' });
        for (const wrapped of [`'${layout.secretFile}'`, `"${layout.secretFile}"`, ` ${layout.secretFile}`, `${layout.secretFile} `, `\t${layout.secretFile}\n`, `"${layout.evil}/secret.txt"`]) {
          await attemptEverything(wrapped);
        }
        // A quote-wrapped allowed path is not silently unwrapped either: it names a different (missing) file.
        const text = await assertDenied('read_text_file', { path: `'${path.join(layout.allowed, 'hello.txt')}'` });
        assert.match(text, /ENOENT|Access denied/);
        assert.deepEqual((await fs.readdir(quoted)).sort(), ['secret.txt']);
      } finally {
        await fs.rm(quoted, { recursive: true });
      }
    });

    it('case variants do not match the allowed directory (GHSA-4gxg-m5jx-9j57)', async () => {
      const upper = path.join(layout.root, 'ALLOWED');
      const mixed = path.join(layout.root, 'Allowed');
      await fs.mkdir(upper);
      await fs.writeFile(path.join(upper, 'secret.txt'), SECRET);
      await fs.symlink(path.join(layout.outside), mixed);
      const caseLink = path.join(layout.allowed, 'CaseLink');
      await fs.symlink(path.join(layout.outside, 'dir'), caseLink);
      try {
        await attemptEverything(path.join(upper, 'secret.txt'));
        await attemptEverything(path.join(mixed, 'secret.txt'));
        await attemptEverything(path.join(layout.allowed, 'caselink', 'secret.txt'));
        await attemptEverything(path.join(layout.allowed, 'CASELINK', 'secret.txt'));
        await attemptEverything(path.join(caseLink, 'secret.txt'));
        await assertDenied('list_directory', { path: upper });
      } finally {
        await fs.rm(upper, { recursive: true });
        await fs.unlink(mixed);
        await fs.unlink(caseLink);
      }
    });

    it('.. traversal, absolute and relative', async () => {
      const rel = (p: string) => path.relative(layout.allowed, p);
      for (const target of [
        `${layout.allowed}/../outside/secret.txt`,
        `${layout.allowed}/sub/../../outside/secret.txt`,
        `${layout.allowed}/./sub/deeper/../../../outside/secret.txt`,
        rel(layout.secretFile),
        `sub/../../outside/secret.txt`,
        `../allowed_evil/secret.txt`,
      ]) {
        await attemptEverything(target);
      }
      await assertDenied('list_directory', { path: `${layout.allowed}/..` });
      await assertDenied('list_directory', { path: '..' });
      await assertDenied('create_directory', { path: `${layout.allowed}/../outside/planted` });
    });

    it('null bytes', async () => {
      for (const target of [`${layout.secretFile}\0`, `${layout.allowed}/hello.txt\0/../../outside/secret.txt`, `\0${layout.secretFile}`, `${layout.allowed}\0/../outside/secret.txt`]) {
        const text = await assertDenied('read_text_file', { path: target });
        assert.match(text, /null byte/);
        await attemptEverything(target);
      }
    });

    it('percent-encoded separators and dots are not decoded', async () => {
      for (const target of [`${layout.allowed}/%2e%2e/outside/secret.txt`, `${layout.allowed}%2f..%2foutside%2fsecret.txt`, `${layout.allowed}/%252e%252e/outside/secret.txt`]) {
        await attemptEverything(target);
      }
      // A name with %2f in it is just a name: reading it finds nothing, writing it creates that literal file inside.
      for (const name of ['..%2f..%2foutside%2fsecret.txt', '..%2F..%2Foutside%2Fsecret.txt']) {
        await assertDenied('read_text_file', { path: `${layout.allowed}/${name}` });
        const wrote = await call(conn.client, 'write_file', { path: `${layout.allowed}/${name}`, content: 'literal' });
        assert.equal(wrote.isError, undefined, textOf(wrote));
        assert.equal(await fs.readFile(path.join(layout.allowed, name), 'utf8'), 'literal');
        await fs.unlink(path.join(layout.allowed, name));
      }
      // The resource side (file:// URIs) as well.
      for (const uri of [
        `file://${layout.allowed}/..%2Foutside%2Fsecret.txt`,
        `file://${layout.allowed}/%2e%2e/outside/secret.txt`,
        `file://${layout.allowed}/../outside/secret.txt`,
        `file://${layout.secretFile}`,
        `file://${layout.allowed}/hello.txt%00/../../outside/secret.txt`,
        `file://evil.example${layout.allowed}/hello.txt`,
      ]) {
        await assert.rejects(conn.client.readResource({ uri }, { timeout: LIMIT }), `resources/read ${uri} must fail`);
      }
      await assertOutsideUntouched();
    });

    it('Windows-style paths on POSIX: backslashes, drive letters, UNC', { skip: process.platform === 'win32' }, async () => {
      for (const target of [
        `${layout.allowed}\\..\\outside\\secret.txt`,
        `..\\outside\\secret.txt`,
        `C:\\Windows\\win.ini`,
        `C:/outside/secret.txt`,
        `c:${layout.secretFile}`,
        `\\\\server\\share\\secret.txt`,
        `${layout.allowed}\\sub`,
      ]) {
        const text = await assertDenied('read_text_file', { path: target });
        assert.match(text, /Windows-style path/);
        await attemptEverything(target);
      }
      // Nothing named with a backslash or drive letter was created inside either.
      assert.ok(!(await fs.readdir(layout.allowed)).some((name) => name.includes('\\') || name.includes(':')));
    });

    it('the allowed directory itself cannot be moved, replaced or written as a file', async () => {
      await assertDenied('move_file', { source: layout.allowed, destination: path.join(layout.allowed, 'inner') });
      await assertDenied('write_file', { path: layout.allowed, content: 'PWNED' });
      const listing = await call(conn.client, 'list_directory', { path: layout.allowed });
      assert.equal(listing.isError, undefined);
    });
  });
