// Pure pieces: lexical path resolution, the inside check, command-line parsing, sizes and MIME types.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AccessDeniedError, AllowedDirectories, formatSize, isInsideDirectory, mediaTypeOf, parseCliArgs, resolveRequestPath } from 'mcp-filesystem-media-server';

const allowed = new AllowedDirectories([
  { given: '/srv/data', real: '/srv/data' },
  { given: '/tmp/link', real: '/private/tmp/real' },
]);

describe('resolveRequestPath', () => {
  it('accepts paths inside either form of an allowed directory, normalised', () => {
    assert.equal(resolveRequestPath('/srv/data', allowed), '/srv/data');
    assert.equal(resolveRequestPath('/srv/data/a/../b.txt', allowed), '/srv/data/b.txt');
    assert.equal(resolveRequestPath('/srv//data/./x', allowed), '/srv/data/x');
    assert.equal(resolveRequestPath('/tmp/link/x', allowed), '/tmp/link/x');
    assert.equal(resolveRequestPath('/private/tmp/real/x', allowed), '/private/tmp/real/x');
    assert.equal(resolveRequestPath('notes/a.md', allowed), '/srv/data/notes/a.md');
  });

  it('refuses everything else, taking the string literally', () => {
    for (const bad of [
      '/srv/data_evil/x',
      '/srv/dat',
      '/srv/data/../etc/passwd',
      '../etc/passwd',
      "/srv/data'",
      '/SRV/data/x',
      '/srv/Data/x',
      '/srv/data\0/x',
      '/srv/data\\..\\..\\etc',
      'C:\\Windows',
      'c:/x',
      '',
    ]) {
      assert.throws(() => resolveRequestPath(bad, allowed), AccessDeniedError, JSON.stringify(bad));
    }
    // Quotes and spaces become part of a relative name inside, never an unwrapped allowed path.
    assert.equal(resolveRequestPath("'/srv/data/x'", allowed), "/srv/data/'/srv/data/x'");
    assert.equal(resolveRequestPath(' x ', allowed), '/srv/data/ x ');
    assert.equal(resolveRequestPath('"/srv/data"/x', allowed), '/srv/data/"/srv/data"/x');
  });

  it('refuses when nothing is allowed yet', () => {
    assert.throws(() => resolveRequestPath('/srv/data/x', new AllowedDirectories()), /no allowed directories/);
  });
});

describe('isInsideDirectory', () => {
  it('needs a separator after the directory', () => {
    assert.equal(isInsideDirectory('/a/b', '/a/b'), true);
    assert.equal(isInsideDirectory('/a/b/c', '/a/b'), true);
    assert.equal(isInsideDirectory('/a/bc', '/a/b'), false);
    assert.equal(isInsideDirectory('/a', '/a/b'), false);
    assert.equal(isInsideDirectory('/anything', '/'), true);
  });
});

describe('parseCliArgs', () => {
  it('directories, --http forms and --max-media-bytes', () => {
    assert.deepEqual(parseCliArgs(['/a', '/b']), { directories: ['/a', '/b'], help: false, version: false });
    assert.equal(parseCliArgs(['--version']).version, true);
    assert.deepEqual(parseCliArgs(['--http', '8080', '/a']).http, { host: '127.0.0.1', port: 8080 });
    assert.deepEqual(parseCliArgs(['--http=0.0.0.0:80', '/a']).http, { host: '0.0.0.0', port: 80 });
    assert.deepEqual(parseCliArgs(['--http', '[::1]:3000']).http, { host: '::1', port: 3000 });
    assert.deepEqual(parseCliArgs(['--http', ':3000']).http, { host: '127.0.0.1', port: 3000 });
    assert.equal(parseCliArgs(['--max-media-bytes', '1048576', '/a']).maxMediaBytes, 1048576);
    assert.deepEqual(parseCliArgs(['--', '--weird-dir']).directories, ['--weird-dir']);
    assert.equal(parseCliArgs(['-h']).help, true);
  });

  it('clear errors for malformed options', () => {
    assert.throws(() => parseCliArgs(['--http']), /^Error: --http needs a port: --http PORT or --http HOST:PORT/);
    assert.throws(() => parseCliArgs(['--http', '--max-media-bytes', '5']), /^Error: --http needs a port/);
    assert.throws(() => parseCliArgs(['--http', 'host']), /^Error: --http "host": "host" is not a port number \(PORT or HOST:PORT/);
    assert.throws(() => parseCliArgs(['--http', 'h:99999']), /^Error: --http "h:99999": port 99999 is out of range \(0-65535/);
    assert.throws(() => parseCliArgs(['--http', 'h:']), /^Error: --http "h:": no port after the host/);
    assert.throws(() => parseCliArgs(['--http', 'h:8x']), /^Error: --http "h:8x": "8x" is not a port number/);
    assert.throws(() => parseCliArgs(['--max-media-bytes']), /^Error: --max-media-bytes needs a number of bytes/);
    assert.throws(() => parseCliArgs(['--max-media-bytes', '-5']), /whole number/);
    assert.throws(() => parseCliArgs(['--max-media-bytes', '1e6']), /whole number/);
    assert.throws(() => parseCliArgs(['--verbose']), /unknown option --verbose/);
  });
});

describe('formatting and MIME types', () => {
  it("formatSize matches the official server's format", () => {
    assert.equal(formatSize(0), '0 B');
    assert.equal(formatSize(1023), '1023 B');
    assert.equal(formatSize(1024), '1.00 KB');
    assert.equal(formatSize(1536), '1.50 KB');
    assert.equal(formatSize(5 * 1024 ** 3), '5.00 GB');
    assert.equal(formatSize(3 * 1024 ** 5), '3072.00 TB');
  });

  it('the official extension map, case-insensitive, octet-stream otherwise', () => {
    assert.equal(mediaTypeOf('/x/a.PNG'), 'image/png');
    assert.equal(mediaTypeOf('/x/a.jpeg'), 'image/jpeg');
    assert.equal(mediaTypeOf('/x/a.svg'), 'image/svg+xml');
    assert.equal(mediaTypeOf('/x/a.flac'), 'audio/flac');
    assert.equal(mediaTypeOf('/x/a.mp3'), 'audio/mpeg');
    assert.equal(mediaTypeOf('/x/a.pdf'), 'application/octet-stream');
    assert.equal(mediaTypeOf('/x/png'), 'application/octet-stream');
  });
});

describe('AllowedDirectories.fromPaths (command-line directories)', () => {
  it('expands ~, keeps a symlinked directory as given and as its real path, skips missing ones', async () => {
    const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'fsms-dirs-')));
    try {
      const real = path.join(root, 'real');
      const link = path.join(root, 'link');
      await fs.mkdir(real);
      await fs.symlink(real, link);
      await fs.writeFile(path.join(root, 'file'), '');
      const warnings: string[] = [];
      const dirs = await AllowedDirectories.fromPaths(['~', link, path.join(root, 'missing'), path.join(root, 'file'), `${real}/`], (w) => warnings.push(w));
      const home = path.resolve(os.homedir());
      const homeReal = await fs.realpath(home);
      assert.deepEqual(dirs.snapshot(), [
        { given: home, real: homeReal },
        { given: link, real },
        { given: real, real },
      ]);
      assert.deepEqual(dirs.displayList(), [...new Set([home, homeReal, link, real])]);
      assert.equal(warnings.length, 2);
      assert.match(warnings[0]!, /Cannot access directory .*missing/);
      assert.match(warnings[1]!, /file is not a directory/);
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});
