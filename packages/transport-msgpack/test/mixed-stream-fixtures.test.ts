// The golden mixed streams (fixtures/streams, SPEC.md 7.4): read by an independent splitter (JSON.parse and
// @msgpack/msgpack), by this package's MixedReader, and by the stdio client transport, cut at every byte
// boundary and in many random chunkings: the same messages must come out every time.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MixedReader, type MixedKind } from 'mcp-msgpack-transport/wire';
import { seededRandom, waitUntil } from './fixtures/stdio-helpers.js';
import { clientOnPipes } from './fixtures/stdio-pipes.js';
import { splitMixed } from './fixtures/wire-taps.js';

interface Part {
  as: 'line' | 'frame' | 'blank';
  message?: unknown;
}
interface Stream {
  name: string;
  parts: Part[];
  streamPath: string;
}

const root = new URL('../../../../', import.meta.url);
const notation = (await import(new URL('fixtures/notation.mjs', root).href)) as { loadStreams(): Stream[] };
const streams = notation.loadStreams().map((stream) => ({ ...stream, bytes: readFileSync(stream.streamPath) }));
const byName = (name: string) => streams.find((s) => s.name === name)!;

/** The messages a stream's source says it holds, with how each was sent. */
function expected(stream: Stream): Array<{ kind: 'line' | 'frame'; message: unknown }> {
  return stream.parts.filter((p) => p.as !== 'blank').map((p) => ({ kind: p.as as 'line' | 'frame', message: p.message }));
}

/** What MixedReader hands on for the stream fed in these chunks: each message's kind and bytes, blank lines left out. */
function readInChunks(bytes: Buffer, cuts: number[]): Array<[MixedKind, string]> {
  const reader = new MixedReader();
  const out: Array<[MixedKind, string]> = [];
  let from = 0;
  for (const to of [...cuts, bytes.length]) {
    reader.push(bytes.subarray(from, to), (message, kind) => {
      if (kind === 'line' && message.every((b) => b === 0x20 || b === 0x09 || b === 0x0d)) return;
      out.push([kind, Buffer.from(message).toString('hex')]);
    });
    from = to;
  }
  reader.end();
  return out;
}

/** `count` sorted cut positions inside `length`, from a seeded generator. */
function randomCuts(random: () => number, length: number, count: number): number[] {
  const cuts = new Set<number>();
  while (cuts.size < count) cuts.add(1 + Math.floor(random() * (length - 1)));
  return [...cuts].sort((a, b) => a - b);
}

describe('golden mixed streams (SPEC.md 7.4)', () => {
  it('there are streams in both directions, each holding lines and frames', () => {
    assert.ok(streams.length >= 2);
    for (const stream of streams) {
      const kinds = new Set(expected(stream).map((m) => m.kind));
      assert.deepEqual([...kinds].sort(), ['frame', 'line'], stream.name);
    }
  });

  it('an independent reader (JSON.parse, @msgpack/msgpack) finds exactly the messages of the source, in order', () => {
    for (const stream of streams) {
      assert.deepEqual(splitMixed(stream.bytes), expected(stream), stream.name);
    }
  });

  for (const stream of streams) {
    it(`${stream.name}: MixedReader gives the same messages cut at every byte boundary, byte by byte, and in 300 random chunkings`, () => {
      const whole = readInChunks(stream.bytes, []);
      assert.equal(whole.length, expected(stream).length);
      assert.deepEqual(
        whole.map(([kind]) => kind),
        expected(stream).map((m) => m.kind),
      );
      for (let i = 1; i < stream.bytes.length; i++) assert.deepEqual(readInChunks(stream.bytes, [i]), whole, `cut at ${i}`);
      assert.deepEqual(
        readInChunks(
          stream.bytes,
          Array.from({ length: stream.bytes.length - 1 }, (_, i) => i + 1),
        ),
        whole,
        'byte by byte',
      );
      const random = seededRandom(20);
      for (let round = 0; round < 300; round++) {
        const cuts = randomCuts(random, stream.bytes.length, 1 + Math.floor(random() * 40));
        assert.deepEqual(readInChunks(stream.bytes, cuts), whole, `cuts ${cuts.join(',')}`);
      }
    });
  }

  it('a stream cut inside a message is a truncated stream at its end', () => {
    const { bytes } = byName('mixed-server-to-client');
    for (const end of [10, bytes.indexOf(0x0a) + 3, bytes.length - 1]) {
      const reader = new MixedReader();
      reader.push(bytes.subarray(0, end), () => {});
      assert.throws(
        () => reader.end(),
        (e: { code?: string }) => e.code === 'truncated-frame',
        `end at ${end}`,
      );
    }
  });
});

describe('the stdio client transport reads the golden server-to-client stream, however it is cut', { timeout: 120_000 }, () => {
  const stream = byName('mixed-server-to-client');
  const messages = expected(stream).map((m) => m.message as JSONRPCMessage);
  // What the application sees: the acceptance taken off the initialize result, the wire selected just before it.
  const acceptIndex = messages.findIndex((m) => 'result' in m && (m.result as { _meta?: unknown })._meta !== undefined);
  const { _meta: _ours, ...initializeResult } = (messages[acceptIndex] as { result: Record<string, unknown> }).result;
  const events = [...messages.slice(0, acceptIndex), { wire: 'msgpack', reason: 'upgrade-accepted' }, { ...messages[acceptIndex], result: initializeResult }, ...messages.slice(acceptIndex + 1)];

  async function readThrough(cuts: number[]): Promise<void> {
    const c = clientOnPipes();
    await c.transport.start();
    await c.transport.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25' } });
    let from = 0;
    for (const to of [...cuts, stream.bytes.length]) {
      c.fromServer.write(stream.bytes.subarray(from, to));
      from = to;
    }
    await waitUntil(() => c.events.length >= events.length, 2000, `every message (cuts ${cuts.join(',')})`);
    assert.deepEqual(c.events, events, `cuts ${cuts.join(',')}`);
    assert.deepEqual(c.errors, []);
    await c.transport.close();
  }

  it('cut at every byte boundary', async () => {
    for (let i = 1; i < stream.bytes.length; i++) await readThrough([i]);
  });

  it('in 100 random chunkings', async () => {
    const random = seededRandom(7);
    for (let round = 0; round < 100; round++) await readThrough(randomCuts(random, stream.bytes.length, 1 + Math.floor(random() * 30)));
  });
});
