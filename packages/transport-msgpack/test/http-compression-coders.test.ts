// The runtime's one-shot coders for one-body replies code the bytes node:zlib's one-shot calls code, on Node
// and Bun: Bun's own zstd (runtime/bun.ts) and the dictionary coding's kept deflate context
// (runtime/zlib-reused-raw-deflate.ts) are there for CPU only, and any standard decoder reads what they make.

import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { describe, it } from 'node:test';
import { mcpDictionaryV1 } from '../src/http/content-coding/mcp-dictionary.js';
import { runtime } from '../src/runtime/current.js';
import { rawDeflateWithDictionary } from '../src/runtime/zlib-reused-raw-deflate.js';

interface ZstdZlib {
  zstdCompressSync(bytes: Uint8Array, options: object): Buffer;
  zstdDecompressSync(bytes: Uint8Array): Buffer;
}
const zstdZlib = zlib as unknown as Partial<ZstdZlib>;
const ZSTD_LEVEL_PARAM = (zlib.constants as Record<string, number>).ZSTD_c_compressionLevel ?? 100;

/** A JSON-RPC reply of about `size` bytes, text that compresses as real replies do (repeats, numbers, paths). */
function reply(size: number, seed: number): Uint8Array {
  const entries: string[] = [];
  let length = 0;
  for (let i = 0; length < size; i++) {
    const entry = `{"name":"file-${(i * 7919 + seed) % 1000}.txt","type":"${i % 3 === 0 ? 'directory' : 'file'}","size":${(i * 104729 + seed) % 100000}}`;
    entries.push(entry);
    length += entry.length + 1;
  }
  return Buffer.from(`{"jsonrpc":"2.0","id":${seed},"result":{"content":[{"type":"text","text":${JSON.stringify(entries.join('\n'))}}]}}`.slice(0, Math.max(size, 60)));
}

/** node:zlib's bytes for a one-body reply of this size (the levels of runtime/zlib-codings.ts's tiers). */
function zstdLevelFor(size: number): number {
  return size >= 64 * 1024 ? 9 : 3;
}

const sizes = [120, 900, 3000, 5000, 20_000, 70_000, 150_000];

describe(`one-body coders code node:zlib's bytes (${runtime.name})`, () => {
  const codings = runtime.contentCodings;

  it('zstd: the same bytes as zlib.zstdCompressSync at the reply size level, read back by zlib', {
    skip: codings.encodes.includes('zstd') && zstdZlib.zstdCompressSync ? false : 'no zstd in this node:zlib (Node before 22.15)',
  }, async () => {
    for (const size of sizes) {
      const plain = reply(size, size);
      const coded = await codings.encode('zstd', plain);
      assert.deepEqual(Buffer.from(coded), zstdZlib.zstdCompressSync!(plain, { params: { [ZSTD_LEVEL_PARAM]: zstdLevelFor(plain.byteLength) } }), `zstd at ${plain.byteLength} bytes`);
      assert.deepEqual(zstdZlib.zstdDecompressSync!(coded), Buffer.from(plain));
    }
  });

  it('br and gzip: read back by zlib', async () => {
    for (const size of sizes) {
      const plain = reply(size, size + 1);
      assert.deepEqual(zlib.brotliDecompressSync(await codings.encode('br', plain)), Buffer.from(plain));
      assert.deepEqual(zlib.gunzipSync(await codings.encode('gzip', plain)), Buffer.from(plain));
    }
  });

  it("the dictionary coding: deflateRawSync's bytes on every call, a reply after a reply, and inflateRawSync reads them", () => {
    const dictionary = mcpDictionaryV1();
    const coder = codings.dictionary!;
    for (let round = 0; round < 3; round++)
      for (const size of [...sizes, 0, 1, 96, 4095, 8192, 8193]) {
        const plain = reply(size, size + round).subarray(0, size);
        const coded = coder.encode(plain, dictionary);
        assert.deepEqual(Buffer.from(coded), zlib.deflateRawSync(plain, { level: 6, dictionary }), `${plain.byteLength} bytes, round ${round}`);
        assert.deepEqual(zlib.inflateRawSync(coded, { dictionary }), Buffer.from(plain));
        assert.deepEqual(Buffer.from(coder.decode(coded, dictionary, plain.byteLength)), Buffer.from(plain));
      }
  });

  it('a kept deflate context per dictionary: two dictionaries in turns each code as deflateRawSync with its own', () => {
    const first = Buffer.from('{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"');
    const second = Buffer.from('"directory","file","size","name","children":[]');
    const coders = [first, second].map((dictionary) => ({ dictionary, code: rawDeflateWithDictionary(6, dictionary) }));
    for (let i = 0; i < 6; i++)
      for (const { dictionary, code } of coders) {
        const plain = reply(200 + i * 300, i);
        const coded = code(plain);
        assert.deepEqual(Buffer.from(coded), zlib.deflateRawSync(plain, { level: 6, dictionary }));
        assert.deepEqual(zlib.inflateRawSync(coded, { dictionary }), Buffer.from(plain));
      }
  });

  it('a coded reply is its own bytes: the kept context does not lend its output buffer', () => {
    const dictionary = mcpDictionaryV1();
    const a = reply(700, 1);
    const b = reply(700, 2);
    const codedA = codings.dictionary!.encode(a, dictionary);
    const copyOfA = Buffer.from(codedA);
    codings.dictionary!.encode(b, dictionary);
    assert.deepEqual(Buffer.from(codedA), copyOfA);
    assert.deepEqual(zlib.inflateRawSync(codedA, { dictionary }), Buffer.from(a));
  });
});
