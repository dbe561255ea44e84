import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { Bench } from 'tinybench';
import { CanonicalEncoder, FrameReader, JsonMessageCodec, LineReader, MsgpackMessageCodec } from 'mcp-msgpack-transport/wire';
import type { Progress } from '../report/progress.js';
import { textTable } from '../report/columns.js';
import { formatRatio, formatValue, VERDICT_MARK } from '../report/format.js';
import type { ScenarioResult } from '../results.js';
import { compareRounds } from '../runner/rounds.js';
import { median } from '../stats.js';

/**
 * `--scenario readers` (opt-in, in this process): the stdio readers alone, a stream arriving in 64 KiB chunks
 * as a pipe delivers it, read into messages: the SDK's `ReadBuffer` (JSON lines; it concatenates every chunk
 * to what it holds and searches it again, so a large line costs it the square of its chunks), our
 * `LineReader` with our JSON codec, and our `FrameReader` with our MessagePack codec. Two streams: one 5 MiB
 * message (an image as base64 text, what both wires carry without native bytes) and a thousand small ones.
 */

const CHUNK = 64 * 1024;

interface Reader {
  id: string;
  label: string;
  /** Reads every chunk; returns how many messages came out. */
  read(chunks: readonly Buffer[]): number;
}

function chunksOf(bytes: Uint8Array): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK) chunks.push(Buffer.from(bytes.subarray(at, at + CHUNK)));
  return chunks;
}

function streams(): Array<{ name: string; messages: unknown[] }> {
  const image = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'image', data: 'QUJD'.repeat((5 * 1024 * 1024 - 120) / 4), mimeType: 'image/png' }] } };
  const small = Array.from({ length: 1000 }, (_, id) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `ok ${id}` }] } }));
  return [
    { name: 'readers/one-5MiB', messages: [image] },
    { name: 'readers/1000-small', messages: small },
  ];
}

const READERS: Reader[] = [
  {
    id: 'sdk-lines',
    label: "SDK ReadBuffer (JSON lines, the SDK's parse and check)",
    read: (chunks) => {
      const buffer = new ReadBuffer();
      let count = 0;
      for (const chunk of chunks) {
        buffer.append(chunk);
        while (buffer.readMessage() !== null) count++;
      }
      return count;
    },
  },
  {
    id: 'lines',
    label: 'mcp-msgpack LineReader + JSON codec',
    read: (chunks) => {
      const reader = new LineReader({ maxLineBytes: 64 * 1024 * 1024 });
      const codec = new JsonMessageCodec();
      let count = 0;
      for (const chunk of chunks) reader.push(chunk, (line) => void (codec.decodeMessage(line) && count++));
      return count;
    },
  },
  {
    id: 'frames',
    label: 'mcp-msgpack FrameReader + MessagePack codec',
    read: (chunks) => {
      const reader = new FrameReader();
      const codec = new MsgpackMessageCodec();
      let count = 0;
      for (const chunk of chunks) reader.push(chunk, (payload) => void (codec.decodeMessage(payload) && count++));
      return count;
    },
  },
];

/** Each stream read by each reader, in rounds alternating their order (tinybench per round). */
export async function runReaders(full: boolean, runtime: string, progress: Progress): Promise<ScenarioResult[]> {
  const rounds = full ? 7 : 3;
  const encoder = new CanonicalEncoder();
  const results: ScenarioResult[] = [];
  const all = streams();
  progress.begin(all.length * rounds);
  for (const [index, stream] of all.entries()) {
    progress.scenario(stream.name, index + 1, all.length);
    const input: Record<string, Buffer[]> = {
      json: chunksOf(Buffer.from(stream.messages.map((m) => `${JSON.stringify(m)}\n`).join(''))),
      msgpack: chunksOf(Buffer.concat(stream.messages.map((m) => Buffer.from(encoder.encodeFrame(m))))),
    };
    const chunksFor = (reader: Reader) => (reader.id === 'frames' ? input.msgpack! : input.json!);
    for (const reader of READERS) {
      const count = reader.read(chunksFor(reader));
      if (count !== stream.messages.length) throw new Error(`${reader.id} read ${count} of ${stream.messages.length} messages`);
    }
    const samples = new Map<string, Array<{ decodeTime: number; bytes: number }>>(READERS.map((r) => [r.id, []]));
    for (let round = 0; round < rounds; round++) {
      const bench = new Bench({ time: full ? 300 : 60, iterations: 3, warmupIterations: 1 });
      for (const reader of round % 2 === 0 ? READERS : [...READERS].reverse()) bench.add(reader.id, () => void reader.read(chunksFor(reader)));
      await bench.run();
      for (const reader of READERS) {
        const period = (bench.getTask(reader.id)?.result as { period?: number } | undefined)?.period;
        if (period === undefined) throw new Error(`${stream.name}: ${reader.id} did not complete`);
        samples.get(reader.id)!.push({ decodeTime: period, bytes: chunksFor(reader).reduce((n, c) => n + c.length, 0) });
      }
      progress.tick();
    }
    results.push({
      name: stream.name,
      venue: 'codec',
      title: stream.name === 'readers/one-5MiB' ? 'one 5 MiB message in 64 KiB chunks' : '1,000 small messages in 64 KiB chunks',
      runtime,
      transport: 'in-process',
      clients: 1,
      rounds,
      callsPerRound: 0,
      warmupCalls: 0,
      variants: READERS.map((r) => ({ id: r.id, label: r.label, values: { decodeTime: median(samples.get(r.id)!.map((s) => s.decodeTime)), encodedBytes: samples.get(r.id)![0]!.bytes } })),
      comparisons: (['lines', 'frames'] as const).map((id) => compareRounds(id, 'sdk-lines', samples.get(id)!, samples.get('sdk-lines')!, [['decodeTime', (s) => s.decodeTime]])),
      notes: [],
    });
  }
  progress.end();
  return results;
}

export function renderReaders(results: readonly ScenarioResult[]): string {
  const rows = results.flatMap((s) =>
    s.variants.map((v) => {
      const ratio = s.comparisons.find((c) => c.candidate === v.id)?.metrics.decodeTime;
      return [s.name, v.label, formatValue('encodedBytes', v.values.encodedBytes), formatValue('decodeTime', v.values.decodeTime), ratio ? `${formatRatio(ratio.ratio)} ${VERDICT_MARK[ratio.verdict]}` : '-'];
    }),
  );
  return `READERS (${results[0]?.runtime ?? ''}): a stream in 64 KiB chunks read into messages, time per stream (median of rounds)\n\n${textTable(['stream', 'reader', 'bytes', 'time', 'reader / SDK'], rows, 2)}\n`;
}
