// A coded event stream's compression context is made on its first use (coded-stream.ts, encoderOnFirstUse):
// a stream that carries nothing before the client goes away makes none, and one that carries events codes the
// bytes an encoder made up front codes, on Node and Bun, for every stream coding the runtime has.

import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { describe, it } from 'node:test';
import { codedEventStream, encoderOnFirstUse } from '../src/http/content-coding/coded-stream.js';
import { runtime } from '../src/runtime/current.js';
import { joinPieces } from '../src/wire/pieces.js';
import { handleStreamCoder } from '../src/runtime/zlib-kept-context.js';
import type { CodingStreamEncoder, ContentCoding } from '../src/runtime/content-codings.js';

const events = ['event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n', ': keep-alive\n\n', 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n'];

/** A source that gives each event as its own pull's chunk (the coder flushes after each), then ends or stays open. */
function source(chunks: readonly string[], end: boolean): ReadableStream<Uint8Array> {
  const queue = chunks.map((chunk) => new TextEncoder().encode(chunk));
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue.shift();
      if (next) controller.enqueue(next);
      else if (end) controller.close();
      else return new Promise(() => {});
    },
  });
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const part of stream as unknown as AsyncIterable<Uint8Array>) parts.push(part);
  const { buffer, written } = joinPieces(
    parts,
    parts.reduce((total, part) => total + part.byteLength, 0),
  );
  return new Uint8Array(buffer.subarray(0, written));
}

function counting(coding: ContentCoding): { made: () => number; make: () => CodingStreamEncoder } {
  let made = 0;
  return {
    made: () => made,
    make: () => {
      made++;
      return runtime.contentCodings.streamEncoder(coding);
    },
  };
}

describe(`coded event streams make their context on first use (${runtime.name})`, () => {
  for (const coding of runtime.contentCodings.encodesStreams) {
    it(`${coding}: the same bytes as an encoder made up front, with events and with none; none made for a stream cancelled empty`, async () => {
      for (const chunks of [events, []]) {
        const eager = await readAll(codedEventStream(source(chunks, true), runtime.contentCodings.streamEncoder(coding)));
        const lazy = counting(coding);
        const onFirstUse = await readAll(codedEventStream(source(chunks, true), encoderOnFirstUse(lazy.make)));
        assert.deepEqual(onFirstUse, eager, `${chunks.length} events`);
        assert.equal(lazy.made(), 1, 'made once, at the first event (or the end)');
        const decoded = await runtime.contentCodings.decode(coding, onFirstUse, 1 << 20);
        assert.equal(new TextDecoder().decode(decoded), chunks.join(''));
      }
      const idle = counting(coding);
      let ended = 0;
      const stream = codedEventStream(source([], false), encoderOnFirstUse(idle.make), () => ended++);
      const reader = stream.getReader();
      const pending = reader.read();
      await new Promise((resolve) => setTimeout(resolve, 20));
      await reader.cancel();
      assert.equal((await pending).done, true);
      assert.equal(idle.made(), 0, 'a stream cancelled before any event made no context');
      assert.equal(ended, 1, 'and it still said it ended (its coded-stream slot goes back)');
    });
  }
});

/** node:zlib's own stream for the coding, with the runtime's stream options, driven as the async coder drove it. */
async function streamReference(coding: ContentCoding, events: readonly Uint8Array[][]): Promise<Uint8Array> {
  const constants = zlib.constants as Record<string, number>;
  const zstd = zlib as unknown as { createZstdCompress?: (options: object) => zlib.Gzip };
  const engine =
    coding === 'zstd'
      ? zstd.createZstdCompress!({ params: { [constants.ZSTD_c_compressionLevel!]: 3 } })
      : coding === 'br'
        ? zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } })
        : zlib.createGzip({ level: 5 });
  const flushKind = coding === 'zstd' ? constants.ZSTD_e_flush! : coding === 'br' ? zlib.constants.BROTLI_OPERATION_FLUSH : zlib.constants.Z_SYNC_FLUSH;
  const out: Uint8Array[] = [];
  engine.on('data', (chunk: Uint8Array) => out.push(chunk));
  for (const event of events) {
    for (const piece of event) engine.write(piece);
    await new Promise<void>((resolve) => engine.flush(flushKind, () => resolve()));
  }
  await new Promise<void>((resolve) => {
    engine.once('end', () => resolve());
    engine.end();
  });
  const { buffer, written } = joinPieces(
    out,
    out.reduce((total, part) => total + part.byteLength, 0),
  );
  return new Uint8Array(buffer.subarray(0, written));
}

describe(`the stream coder codes node:zlib's stream bytes, synchronously (${runtime.name})`, () => {
  for (const coding of runtime.contentCodings.encodesStreams) {
    it(`${coding}: events of one piece and of several, small and past the output chunk, flushed each, then the end`, async () => {
      const text = (n: number, seed: number) => new TextEncoder().encode(Array.from({ length: n }, (_, i) => String.fromCharCode(97 + ((i * 7 + seed * 13 + (i >> 5)) % 26))).join(''));
      const events = [[text(14, 1)], [text(300, 2), text(40, 3)], [text(70_000, 4)], [], [text(5, 5), text(5, 6), text(5, 7)]];
      const encoder = runtime.contentCodings.streamEncoder(coding);
      const parts: Uint8Array[] = [];
      for (const event of events) {
        for (const piece of event) encoder.write(piece);
        const flushed = await encoder.flush();
        const plainSoFar = events.slice(0, events.indexOf(event) + 1).flat();
        parts.push(...flushed);
        // Each event decodes whole before the next one is written (a sync flush).
        const { buffer, written } = joinPieces(
          parts,
          parts.reduce((total, part) => total + part.byteLength, 0),
        );
        const decodedSoFar = await streamDecodedPrefix(coding, new Uint8Array(buffer.subarray(0, written)));
        assert.equal(
          decodedSoFar,
          plainSoFar.reduce((total, piece) => total + piece.byteLength, 0),
          `${coding}: all of event ${events.indexOf(event)} decodes at its flush`,
        );
      }
      parts.push(...(await encoder.end()));
      const { buffer, written } = joinPieces(
        parts,
        parts.reduce((total, part) => total + part.byteLength, 0),
      );
      assert.deepEqual(new Uint8Array(buffer.subarray(0, written)), await streamReference(coding, events));
    });
  }
});

describe(`a stream coder destroyed is not written to again (${runtime.name})`, () => {
  // The client going away destroys the context while a pull may be in flight; that pull then ends or flushes
  // it. On Node a write to a destroyed zlib object's handle aborts the process (a native assertion), so these
  // calls must fail as errors: this test's process would not survive otherwise.
  for (const coding of runtime.contentCodings.encodesStreams) {
    it(`${coding}: write, flush and end after destroy reject, and the process goes on`, async () => {
      const encoder = runtime.contentCodings.streamEncoder(coding);
      encoder.write(new TextEncoder().encode(events[0]!));
      assert.ok((await encoder.flush()).length > 0);
      encoder.destroy();
      encoder.write(new TextEncoder().encode(events[1]!));
      await assert.rejects(encoder.flush());
      await assert.rejects(encoder.end());
    });
    it(`${coding}: a coded event stream cancelled while its pull waits for the next event ends without writing`, async () => {
      let release: (() => void) | undefined;
      const chunks = [new TextEncoder().encode(events[0]!)];
      const inner = new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = chunks.shift();
          if (next) controller.enqueue(next);
          // The second pull waits; the stream is cancelled meanwhile, then this source ends.
          else
            return new Promise<void>((resolve) => {
              release = () => {
                // Already closed by the cancel: the source has nothing more to say.
                try {
                  controller.close();
                } catch {}
                resolve();
              };
            });
        },
      });
      let ended = 0;
      const coded = codedEventStream(
        inner,
        encoderOnFirstUse(() => runtime.contentCodings.streamEncoder(coding)),
        () => ended++,
      );
      const reader = coded.getReader();
      assert.ok(((await reader.read()).value?.byteLength ?? 0) > 0, 'the first event, coded');
      const pulling = reader.read().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 10));
      await reader.cancel(new Error('client gone'));
      release?.();
      await pulling;
      await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(ended, 1);
    });
  }
});

describe(`the synchronous stream coder checks itself once before its first use (${runtime.name})`, () => {
  const flushes = { write: zlib.constants.Z_NO_FLUSH, flush: zlib.constants.Z_SYNC_FLUSH, finish: zlib.constants.Z_FINISH };
  it('is used where its probe decodes to what went in (node:zlib on Node and Bun has the handle)', () => {
    const coder = handleStreamCoder(
      () => zlib.createGzip({ level: 5 }),
      flushes,
      (bytes) => zlib.gunzipSync(bytes),
    );
    assert.ok(coder, 'the handle path, checked, on this runtime');
    coder.destroy();
  });
  it('is not used where the probe does not come back whole: the caller keeps node:zlib stream', () => {
    let decoded = 0;
    const lossy = (bytes: Uint8Array) => {
      decoded++;
      return zlib.gunzipSync(bytes).subarray(1);
    };
    const make = () => zlib.createGzip({ level: 5 });
    assert.equal(handleStreamCoder(make, flushes, lossy), undefined);
    // Checked once per maker: the answer is kept, not probed again per stream.
    assert.equal(handleStreamCoder(make, flushes, lossy), undefined);
    assert.equal(decoded, 1);
  });
});

/** How many bytes a stream decoder gives for a coded prefix (a stream not ended yet). */
async function streamDecodedPrefix(coding: ContentCoding, coded: Uint8Array): Promise<number> {
  const zstd = zlib as unknown as { createZstdDecompress?: () => zlib.Gunzip };
  const decoder = coding === 'zstd' ? zstd.createZstdDecompress!() : coding === 'br' ? zlib.createBrotliDecompress() : zlib.createGunzip();
  let total = 0;
  decoder.on('data', (chunk: Uint8Array) => {
    total += chunk.byteLength;
  });
  await new Promise<void>((resolve) => decoder.write(coded, () => decoder.flush(() => resolve())));
  decoder.destroy();
  return total;
}
