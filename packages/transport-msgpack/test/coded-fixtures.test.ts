// The coded fixtures (fixtures/coded, SPEC.md section 10), checked as another implementation would: each
// body decodes to exactly its plain bytes; each stream's prefix up to each flush decodes to exactly the
// events before it (an event never waits for the next); the refusals are refused (the bomb while inflating,
// at the cap). And this package's own decoder (Runtime.contentCodings) agrees on every one.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { runtime } from '../src/runtime/current.js';
import type { ContentCoding } from '../src/runtime/content-codings.js';

interface CodedFixture {
  name: string;
  description: string;
  form: 'body' | 'stream';
  coding: ContentCoding;
  refuse?: 'too-large' | 'does-not-decode';
  cap?: number;
  flushes?: number[];
  codedPath: string;
}
interface CodedModule {
  loadCoded(): CodedFixture[];
  plainParts(fixture: CodedFixture): Uint8Array[];
  concat(parts: Uint8Array[]): Buffer;
  hasCoding(coding: string): boolean;
  decodeWhole(coding: string, bytes: Uint8Array, maxBytes?: number): Buffer;
  decodePrefix(coding: string, bytes: Uint8Array): Buffer;
}

const root = new URL('../../../../', import.meta.url);
const coded = (await import(new URL('fixtures/coded.mjs', root).href)) as CodedModule;
const fixtures = coded.loadCoded();

describe('coded fixtures (fixtures/coded)', () => {
  it('has bodies and streams in each coding, and refusals', () => {
    assert.ok(fixtures.length >= 9, `${fixtures.length} fixtures`);
    for (const coding of ['gzip', 'br', 'zstd']) assert.ok(fixtures.some((f) => f.coding === coding && !f.refuse));
    assert.ok(fixtures.some((f) => f.form === 'stream' && (f.flushes?.length ?? 0) >= 3));
  });

  for (const fixture of fixtures) {
    const skip = coded.hasCoding(fixture.coding) ? false : `this runtime's zlib has no ${fixture.coding} (Node 20)`;
    it(`${fixture.name}: ${fixture.description}`, { skip }, async () => {
      const bytes = readFileSync(fixture.codedPath);
      const plain = coded.concat(coded.plainParts(fixture));
      if (fixture.refuse === 'too-large') {
        assert.throws(() => coded.decodeWhole(fixture.coding, bytes, fixture.cap), { code: 'ERR_BUFFER_TOO_LARGE' });
        await assert.rejects(async () => runtime.contentCodings.decode(fixture.coding, bytes, fixture.cap!), { name: 'DecodedTooLargeError' });
        assert.ok(plain.byteLength > fixture.cap! && bytes.byteLength < fixture.cap! / 100, 'a ratio bomb');
        return;
      }
      if (fixture.refuse === 'does-not-decode') {
        assert.throws(() => coded.decodeWhole(fixture.coding, bytes));
        await assert.rejects(async () => runtime.contentCodings.decode(fixture.coding, bytes, 1 << 20));
        return;
      }
      assert.deepEqual(coded.decodeWhole(fixture.coding, bytes), plain);
      assert.deepEqual(Buffer.from(await runtime.contentCodings.decode(fixture.coding, bytes, plain.byteLength)), plain, "this package's decoder, at exactly the plain size");
      if (fixture.form === 'stream') {
        const parts = coded.plainParts(fixture);
        assert.equal(fixture.flushes!.length, parts.length);
        fixture.flushes!.forEach((offset, k) => {
          const prefix = coded.decodePrefix(fixture.coding, bytes.subarray(0, offset));
          assert.deepEqual(prefix, coded.concat(parts.slice(0, k + 1)), `events 1..${k + 1} decode whole from the bytes up to flush ${k + 1}`);
        });
      }
    });
  }
});
