// The benchmark's HTTP server child, as the media/http-16 scenario runs it: the media server on our stack
// behind the counting relay, 16 MessagePack clients with native bytes. Every client's GET stream must get
// its response headers at once: the host used to read a MessagePack stream whole, so each GET waited for
// headers until undici's 300 s headersTimeout turned it into "fetch failed" in the middle of a long run.
// Loopback only, a bounded number of calls, a time limit; nothing about speed.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CountingProxy } from 'mcp-msgpack-bench';
import { callToolNative, HttpMsgpackClientTransport, type NativeImageContent } from 'mcp-msgpack-transport';
import { MSGPACK_STREAM_MEDIA_TYPE } from 'mcp-msgpack-transport/wire';

const CLIENTS = 16;
const CALLS_PER_CLIENT = 2;
const FILE_BYTES = 1024 * 1024;
const entry = join(dirname(createRequire(import.meta.url).resolve('mcp-msgpack-bench/package.json')), 'dist', 'esm', 'servers', 'entry.js');

function readyPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /BENCH_READY (\d+)/.exec(text);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`bench server exited (${code}) before it was ready`)));
  });
}

/** Resolves once `count` is reached, or rejects after `ms` saying how far it got. */
function waitFor(what: string, ms: number, reached: () => boolean, state: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      if (reached()) {
        clearInterval(poll);
        resolve();
      } else if (Date.now() - started > ms) {
        clearInterval(poll);
        reject(new Error(`${what} within ${ms} ms: ${state()}`));
      }
    }, 20);
  });
}

describe('bench HTTP host, media server, 16 MessagePack clients behind the counting relay', { timeout: 90_000 }, () => {
  it('answers every GET stream with headers at once and serves every call', async () => {
    // --gzip: our handler behind the generic host (without it, entry.js serves ours with listenNode).
    const dir = mkdtempSync(join(tmpdir(), 'bench-http-host-'));
    const file = join(dir, 'image.png');
    const bytes = randomBytes(FILE_BYTES);
    writeFileSync(file, bytes);
    const child = spawn(process.execPath, [entry, '--app', 'media', '--transport', 'http', '--stack', 'ours', '--native', '--gzip', '--dir', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let proxy: CountingProxy | undefined;
    const clients: Client[] = [];
    try {
      proxy = new CountingProxy(await readyPort(child));
      const url = new URL(`http://127.0.0.1:${await proxy.listen()}/mcp`);
      const getStreams: string[] = [];
      const errors: string[] = [];
      // Records what each GET stream's response said once its headers arrived.
      const recording: FetchLike = async (input, init) => {
        const response = await fetch(input, init);
        if (init?.method === 'GET') getStreams.push(`${response.status} ${response.headers.get('content-type')}`);
        return response;
      };
      for (let i = 0; i < CLIENTS; i++) {
        const client = new Client({ name: 'http-host-test', version: '1.0.0' });
        client.onerror = (error) => void errors.push(error.message);
        await client.connect(new HttpMsgpackClientTransport(url, { fetch: recording, nativeBytes: true }));
        clients.push(client);
      }
      await waitFor(
        'every GET stream got its headers',
        10_000,
        () => getStreams.length === CLIENTS,
        () => `${getStreams.length} of ${CLIENTS}`,
      );
      assert.deepEqual(
        getStreams,
        Array.from({ length: CLIENTS }, () => `200 ${MSGPACK_STREAM_MEDIA_TYPE}`),
      );

      const sizes = await Promise.all(
        clients.map(async (client) => {
          const seen: number[] = [];
          for (let i = 0; i < CALLS_PER_CLIENT; i++) {
            const result = await callToolNative(client, { name: 'read_media_file', arguments: { path: file } });
            const data = (result.content[0] as NativeImageContent).data;
            assert.ok(Buffer.from(data.buffer, data.byteOffset, data.byteLength).equals(bytes), 'media bytes differ from the file');
            seen.push(data.byteLength);
          }
          return seen;
        }),
      );
      assert.deepEqual(
        sizes.flat(),
        Array.from({ length: CLIENTS * CALLS_PER_CLIENT }, () => FILE_BYTES),
      );
      // Media travelled as bin (a quarter smaller than base64) through the relay.
      assert.ok(proxy.counter.received < CLIENTS * CALLS_PER_CLIENT * FILE_BYTES * 1.1, `relay counted ${proxy.counter.received} bytes to the clients`);
      assert.deepEqual(errors, []);
    } finally {
      await Promise.all(clients.map((client) => client.close().catch(() => {})));
      child.kill('SIGTERM');
      await proxy?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
