// The runtime's one-shot coders for one-body replies code the bytes node:zlib's one-shot calls code, on Node
// and Bun: Bun's own zstd (runtime/bun.ts) and the kept contexts of the dictionary coding's deflate and of zstd
// per level (runtime/zlib-kept-context.ts) are there for CPU only, and any standard decoder reads what they make.

import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { describe, it } from 'node:test';
import { mcpDictionaryV1 } from '../src/http/content-coding/mcp-dictionary.js';
import { runtime } from '../src/runtime/current.js';
import { keptContextCoder, rawDeflateWithDictionary, rawInflateWithDictionary } from '../src/runtime/zlib-kept-context.js';

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

const sizes = [120, 900, 3000, 5000, 20_000, 70_000, 150_000, 300_000];

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

  it('zstd: the levels in turns, over three rounds, keep coding as a fresh zstdCompressSync (a kept context per level is reset, never carried over)', {
    skip: codings.encodes.includes('zstd') && zstdZlib.zstdCompressSync ? false : 'no zstd in this node:zlib (Node before 22.15)',
  }, async () => {
    const held: Array<[Uint8Array, Buffer]> = [];
    for (let round = 0; round < 3; round++)
      for (const size of [...sizes].reverse()) {
        const plain = reply(size, size + round);
        const coded = await codings.encode('zstd', plain);
        assert.deepEqual(Buffer.from(coded), zstdZlib.zstdCompressSync!(plain, { params: { [ZSTD_LEVEL_PARAM]: zstdLevelFor(plain.byteLength) } }), `zstd at ${plain.byteLength} bytes, round ${round}`);
        held.push([coded, Buffer.from(coded)]);
      }
    // Each coded reply is its own bytes: a later reply does not write over an earlier one's.
    for (const [coded, copy] of held) assert.deepEqual(Buffer.from(coded), copy);
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

  it("a kept context whose bytes differ from the one-shot call's, or that has no handle, is not used: the one-shot call codes", () => {
    const oneShot = (bytes: Uint8Array): Uint8Array => zlib.deflateRawSync(bytes, { level: 6 });
    const probe = reply(600, 9);
    const unlike = keptContextCoder({ make: () => zlib.createDeflateRaw({ level: 0 }), finish: zlib.constants.Z_FINISH, oneShot, maxInput: 8192, probe });
    const handleless = keptContextCoder({ make: () => ({ on: () => {} }), finish: zlib.constants.Z_FINISH, oneShot, maxInput: 8192, probe });
    for (const size of [100, 3000, 9000]) {
      const plain = reply(size, size);
      assert.notDeepEqual(zlib.deflateRawSync(plain, { level: 0 }), oneShot(plain), 'level 0 (stored) codes this input unlike level 6');
      assert.deepEqual(Buffer.from(unlike(plain)), oneShot(plain));
      assert.deepEqual(Buffer.from(handleless(plain)), oneShot(plain));
    }
  });

  it('a kept context codes inputs up to maxInput; a larger one goes one-shot, with the same bytes', () => {
    let made = 0;
    let oneShots = 0;
    const coder = keptContextCoder({
      make: () => {
        made++;
        return zlib.createDeflateRaw({ level: 6 });
      },
      finish: zlib.constants.Z_FINISH,
      oneShot: (bytes) => {
        oneShots++;
        return zlib.deflateRawSync(bytes, { level: 6 });
      },
      maxInput: 4096,
      probe: reply(600, 3),
    });
    assert.equal(oneShots, 2, 'the check codes the probe one-shot twice');
    for (const size of [4096, 4097, 20_000, 10, 4096]) {
      const plain = reply(size, size).subarray(0, size);
      assert.deepEqual(Buffer.from(coder(plain)), zlib.deflateRawSync(plain, { level: 6 }), `${size} bytes`);
    }
    assert.equal(made, 1, 'one context for the process, made once');
    assert.equal(oneShots, 4, 'only the two inputs over maxInput went one-shot (node:zlib handle on Node and Bun)');
  });

  it("the dictionary coding's kept inflate context decodes as inflateRawSync: bytes, the cap, and every error, then decodes again", () => {
    const dictionary = mcpDictionaryV1();
    const inflate = rawInflateWithDictionary(dictionary);
    /** inflateRawSync's answer for these bytes and this cap: the bytes, or the error's code and message. */
    const answer = (run: () => Uint8Array): unknown => {
      try {
        return Buffer.from(run());
      } catch (error) {
        return { code: (error as { code?: unknown }).code, message: (error as Error).message };
      }
    };
    const same = (coded: Uint8Array, maxBytes: number, what: string) =>
      assert.deepEqual(
        answer(() => inflate(coded, maxBytes)),
        answer(() => zlib.inflateRawSync(coded, { dictionary, maxOutputLength: maxBytes })),
        what,
      );
    const codedOf = (size: number, seed: number) => {
      const plain = reply(size, seed).subarray(0, size);
      return { plain, coded: zlib.deflateRawSync(plain, { level: 6, dictionary }) };
    };
    for (let round = 0; round < 2; round++)
      for (const size of [60, 700, 3000, 16_383, 16_384, 16_385, 40_000]) {
        const { plain, coded } = codedOf(size, size + round);
        same(coded, 1 << 20, `${size} bytes`);
        same(coded, size, `${size} bytes, capped at its size`);
        same(coded, size - 1, `${size} bytes, capped one under`);
        same(Buffer.concat([coded, Buffer.from([1, 2, 3])]), 1 << 20, `${size} bytes and bytes after the end`);
        same(coded.subarray(0, coded.byteLength - 3), 1 << 20, `${size} bytes, truncated`);
        same(Buffer.from(coded).fill(0xff, 2, 9), 1 << 20, `${size} bytes, corrupt`);
        // After each failure the next reply decodes whole (a context whose zlib object failed is made anew).
        assert.deepEqual(Buffer.from(inflate(coded, 1 << 20)), Buffer.from(plain), `${size} bytes after the failures`);
      }
  });

  it('a decoded reply is its own bytes: the kept inflate context does not lend its output buffer', () => {
    const dictionary = mcpDictionaryV1();
    const a = reply(700, 1);
    const b = reply(700, 2);
    const decodedA = codings.dictionary!.decode(codings.dictionary!.encode(a, dictionary), dictionary, 1 << 20);
    const decodedB = codings.dictionary!.decode(codings.dictionary!.encode(b, dictionary), dictionary, 1 << 20);
    assert.deepEqual(Buffer.from(decodedA), Buffer.from(a));
    assert.deepEqual(Buffer.from(decodedB), Buffer.from(b));
  });
});
