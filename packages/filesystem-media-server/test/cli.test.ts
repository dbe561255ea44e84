// The mcp-filesystem-media-server binary: usage and errors, the media limit flag, --http on loopback.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { call, connectOver, LIMIT, OUR_CLI, textOf } from './helpers/client.js';
import { spawnHttpServer } from './helpers/http-server.js';
import { makeLayout, type Layout } from './helpers/layout.js';

let layout: Layout;
before(async () => {
  layout = await makeLayout();
});
after(async () => {
  await layout?.cleanup();
});

/** A POST with exactly these headers (fetch would not let us set Host). */
function rawPost(url: URL, headers: Record<string, string>, body: unknown): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', headers }, (response) => {
      response.resume();
      resolve({ status: response.statusCode ?? 0 });
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

function runCli(args: string[]) {
  return spawnSync(process.execPath, [OUR_CLI, ...args], { encoding: 'utf8', timeout: LIMIT, input: '' });
}

describe('command line', { timeout: LIMIT * 2 }, () => {
  it('is an executable script with a node shebang', async () => {
    assert.match(await fs.readFile(OUR_CLI, 'utf8'), /^#!\/usr\/bin\/env node\n/);
  });

  it('--help prints usage; bad options exit 2 with the reason and usage', () => {
    const help = runCli(['--help']);
    assert.equal(help.status, 0);
    assert.match(help.stderr, /Usage: mcp-filesystem-media-server \[--http HOST:PORT\]/);
    const bad = runCli(['--http', 'nonsense', layout.allowed]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /^mcp-filesystem-media-server: --http "nonsense": "nonsense" is not a port number/);
    assert.match(bad.stderr, /Usage:/);
    assert.equal(runCli(['--frobnicate']).status, 2);
  });

  it('--version prints the package version on stdout', async () => {
    const manifest = JSON.parse(await fs.readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const result = runCli(['--version']);
    assert.equal(result.status, 0);
    assert.equal(result.stdout, `mcp-filesystem-media-server ${manifest.version}\n`);
  });

  it('each malformed --http gets its own message and exit 2', () => {
    const cases: Array<[string[], RegExp]> = [
      [['--http', 'abc'], /--http "abc": "abc" is not a port number \(PORT or HOST:PORT/],
      [['--http', '99999'], /--http "99999": port 99999 is out of range \(0-65535/],
      [['--http', 'localhost:'], /--http "localhost:": no port after the host/],
      [['--http'], /--http needs a port: --http PORT or --http HOST:PORT/],
      [['--http', '--max-media-bytes', '5'], /--http needs a port: --http PORT or --http HOST:PORT/],
      [['--http='], /--http needs a port/],
    ];
    for (const [args, message] of cases) {
      const result = runCli([layout.allowed, ...args]);
      assert.equal(result.status, 2, args.join(' '));
      assert.match(result.stderr.split('\n')[0]!, message, args.join(' '));
    }
  });

  it('a port already in use is one line naming the port, and exit 1', async () => {
    const blocker = createNetServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (blocker.address() as AddressInfo).port;
      const result = runCli(['--http', `127.0.0.1:${port}`, layout.allowed]);
      assert.equal(result.status, 1);
      const lines = result.stderr
        .trimEnd()
        .split('\n')
        .filter((line) => !line.startsWith('Warning: /proc/self/fd'));
      assert.deepEqual(lines, [`mcp-filesystem-media-server: cannot listen on 127.0.0.1:${port}: port ${port} is already in use (pick another port, or 0 for a free one)`]);
      assert.equal(result.stdout, '');
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('exits 1 when none of the directories is accessible', () => {
    const result = runCli([path.join(layout.root, 'missing'), path.join(layout.allowed, 'hello.txt')]);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /Cannot access directory .*missing/);
    assert.match(result.stderr, /is not a directory/);
    assert.match(result.stderr, /none of the given directories is accessible/);
  });

  it('--max-media-bytes sets the media limit', async () => {
    const conn = await connectOver(new StdioClientTransport({ command: process.execPath, args: [OUR_CLI, '--max-media-bytes', '10', layout.allowed], stderr: 'ignore' }));
    try {
      const result = await call(conn.client, 'read_media_file', { path: path.join(layout.allowed, 'pixel.png') });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /media limit of .* \(10 bytes\)/);
    } finally {
      await conn.close();
    }
  });

  it('--http PORT listens on loopback only, with the URL on stdout', async () => {
    const server = await spawnHttpServer([layout.allowed]);
    try {
      assert.equal(server.url.hostname, '127.0.0.1');
      assert.equal(server.url.pathname, '/mcp');
      // DNS-rebinding protection is on for loopback: a request naming another host is refused.
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const evil = await rawPost(server.url, { ...headers, host: 'evil.example' }, initialize);
      assert.equal(evil.status, 403);
      const good = await rawPost(server.url, headers, initialize);
      assert.equal(good.status, 200);
    } finally {
      await server.stop();
    }
  });
});

describe('stopping', { timeout: LIMIT }, () => {
  it('SIGTERM while idle: says so on stderr, closes and exits 0 at once, saying how long it took', async () => {
    const child = spawn(process.execPath, [OUR_CLI, '--http', '127.0.0.1:0', layout.allowed], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
    try {
      await new Promise((resolve) => child.stdout.once('data', resolve));
      child.kill('SIGTERM');
      const code = await exited;
      assert.equal(code, 0, stderr);
      assert.match(stderr, /SIGTERM: closing sessions and connections\n/);
      // Idle, nothing to wait for: closed within the 5 s grace (the time is the server's own, not asserted).
      assert.match(stderr, /stopped in \d+ ms\n/);
      assert.doesNotMatch(stderr, /still closing/);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
