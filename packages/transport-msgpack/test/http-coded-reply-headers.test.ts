// The coded reply path reads a lazy reply's header record, not its headers (coded-reply.ts, hasContentEncoding):
// reading `headers` would make a Headers object and measure the whole body for Content-Length, on every coded
// reply. The body coded is the coder's bytes either way; a reply already coded still passes as it is.

import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { describe, it } from 'node:test';
import { resolveCompression } from '../src/http/content-coding/compression-options.js';
import { codedReply } from '../src/http/server/coded-reply.js';
import { untouchedHeaders } from '../src/http/server/exchange/lazy-response.js';
import { respond } from '../src/http/server/exchange/responses.js';
import { runtime } from '../src/runtime/current.js';
import type { ContentCoding } from '../src/runtime/content-codings.js';

const policy = resolveCompression(true, runtime.contentCodings);
const request = { acceptEncoding: 'br, gzip', outsideSession: false, localAddress: undefined };
const lazyReplies = runtime.adapterWritesReplyText;

function replyText(size: number): string {
  const lines: string[] = [];
  for (let i = 0, length = 0; length < size; i++) {
    const line = `[FILE] src/module-${(i * 7919) % 1000}/index-${i % 13}.ts ${(i * 104729) % 100000}`;
    lines.push(line);
    length += line.length + 1;
  }
  return JSON.stringify({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: lines.join('\n') }] } });
}

async function bodyOf(response: Response): Promise<Uint8Array> {
  return new Uint8Array(await response.arrayBuffer());
}

function decoded(coding: string, bytes: Uint8Array): string {
  const plain = coding === 'br' ? zlib.brotliDecompressSync(bytes) : zlib.gunzipSync(bytes);
  return new TextDecoder().decode(plain);
}

describe(`a coded reply reads its header record, not its headers (${runtime.name})`, () => {
  for (const size of [2_000, 20_000, 100_000]) {
    it(`${size} characters of JSON: coded with the coder's bytes, the uncoded reply's headers never made`, async () => {
      const text = replyText(size);
      const original = respond(200, text, { 'Content-Type': 'application/json' });
      const coded = await codedReply(original, request, policy);
      const coding = coded.headers.get('content-encoding');
      assert.ok(coding === 'br' || coding === 'gzip', `coded: ${String(coding)}`);
      const body = await bodyOf(coded);
      assert.deepEqual(body, new Uint8Array(runtime.contentCodings.encode(coding as ContentCoding, new TextEncoder().encode(text)) as Uint8Array));
      assert.equal(decoded(coding, body), text);
      assert.equal(coded.headers.get('content-type'), 'application/json');
      const length = coded.headers.get('content-length');
      assert.ok(length === null || Number(length) === body.byteLength, `the coded length, not the uncoded one: ${String(length)}`);
      if (lazyReplies) assert.ok(untouchedHeaders(original), "the uncoded reply's Headers were never made");
    });
  }
  for (const name of ['Content-Encoding', 'content-encoding']) {
    it(`a reply that already has a coding (${name} in its record) passes as it is`, async () => {
      const original = respond(200, replyText(20_000), { 'Content-Type': 'application/json', [name]: 'identity' });
      const passed = await codedReply(original, request, policy);
      assert.equal(passed, original);
      assert.equal(passed.headers.get('content-encoding'), 'identity');
    });
  }
});
