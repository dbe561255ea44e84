// A coded event stream's compression context is made on its first use (coded-stream.ts, encoderOnFirstUse):
// a stream that carries nothing before the client goes away makes none, and one that carries events codes the
// bytes an encoder made up front codes, on Node and Bun, for every stream coding the runtime has.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codedEventStream, encoderOnFirstUse } from '../src/http/content-coding/coded-stream.js';
import { runtime } from '../src/runtime/current.js';
import { joinPieces } from '../src/wire/pieces.js';
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
