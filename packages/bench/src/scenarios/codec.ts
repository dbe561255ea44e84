import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Decoder as MsgpackJsDecoder, Encoder as MsgpackJsEncoder } from '@msgpack/msgpack';
import { Bench } from 'tinybench';
import { CanonicalEncoder, DEFAULT_DECODE_PATH, MsgpackDecoder } from 'mcp-msgpack-transport/wire';
import { diffText, embeddingResult, mediaBytes, reviewContext, seriesResult, shortStringRows, toolList } from '../payloads.js';
import type { Progress } from '../report/progress.js';
import type { MetricKey, ScenarioResult, VariantResult } from '../results.js';
import { compareRounds } from '../runner/rounds.js';
import { median } from '../stats.js';

/** One codec-venue payload: the message as JSON carries it, and as MessagePack carries it (bin for media). */
export interface CodecPayload {
  name: string;
  title: string;
  /** Messages encoded and decoded per operation (the fixtures are many small ones). */
  json: unknown[];
  msgpack: unknown[];
  /** Whether the MessagePack form holds bin (the decoder must allow it). */
  bin: boolean;
}

interface Codec {
  id: string;
  label: string;
  encode(value: unknown): Uint8Array;
  decode(bytes: Uint8Array): unknown;
  /** Which form of the payload this codec carries. */
  form: 'json' | 'msgpack';
}

function codecs(bin: boolean): Codec[] {
  const encoder = new CanonicalEncoder();
  const guardThenMsgpackr = new MsgpackDecoder({ allowBin: bin, decodePath: 'guard-then-msgpackr' });
  const singlePass = new MsgpackDecoder({ allowBin: bin, decodePath: 'single-pass' });
  const jsEncoder = new MsgpackJsEncoder();
  const jsDecoder = new MsgpackJsDecoder({ maxStrLength: 64 << 20, maxBinLength: 64 << 20, maxArrayLength: 1 << 20, maxMapLength: 1 << 20 });
  const text = new TextDecoder();
  return [
    // JSON as a wire carries it: UTF-8 bytes out, UTF-8 bytes in.
    { id: 'json', label: 'JSON', form: 'json', encode: (v) => Buffer.from(JSON.stringify(v)), decode: (b) => JSON.parse(text.decode(b)) },
    // The project's codec, once per decode path (MsgpackDecoder's decodePath). encode() returns a view into
    // its arena: copy-free, valid until reused.
    { id: 'msgpack-guard', label: 'mcp-msgpack, guard + msgpackr', form: 'msgpack', encode: (v) => encoder.encode(v), decode: (b) => guardThenMsgpackr.decode(b).value },
    { id: 'msgpack-1pass', label: 'mcp-msgpack, single-pass decode', form: 'msgpack', encode: (v) => encoder.encode(v), decode: (b) => singlePass.decode(b).value },
    { id: 'msgpack-js', label: '@msgpack/msgpack', form: 'msgpack', encode: (v) => jsEncoder.encode(v), decode: (b) => jsDecoder.decode(b) },
  ];
}

/** The decode path this runtime ships with. */
const SHIPPED = DEFAULT_DECODE_PATH === 'single-pass' ? 'msgpack-1pass' : 'msgpack-guard';

/**
 * The decode path this runtime ships with first (the headline), then the other, then the paths against each
 * other; only the first when the other codecs did not run.
 */
function codecComparisons(ran: ReadonlySet<string>): Array<[string, string]> {
  const other = SHIPPED === 'msgpack-1pass' ? 'msgpack-guard' : 'msgpack-1pass';
  const all: Array<[string, string]> = [
    [SHIPPED, 'json'],
    [other, 'json'],
    ['msgpack-1pass', 'msgpack-guard'],
    ['msgpack-js', 'json'],
  ];
  return all.filter(([c, b]) => ran.has(c) && ran.has(b));
}

/**
 * How long the codec venue runs. Quick mode runs JSON and the decode path this runtime ships with, the only
 * ratio its summary shows; --full (and --details) every codec. `minIterations`: tinybench's floor per task,
 * which decides the time when one operation is long (the golden fixtures hold a 1.5 MB map: 5 iterations of
 * every codec took 15 s of a quick run).
 */
export interface CodecBudget {
  rounds: number;
  timeMs: number;
  minIterations: number;
  codecs: 'all' | 'shipped';
}

function response(id: number, result: unknown): unknown {
  return { jsonrpc: '2.0', id, result };
}

/**
 * The golden fixtures' messages (those without bin), when the repository's fixtures/ is present; up to
 * `maxFrameBytes` each (quick mode leaves out the 1.5 MB map of map-32.frame, a test of the map32 header that
 * took 15 s of a quick run, more than all of its other messages).
 */
export function goldenMessages(maxFrameBytes = Infinity): unknown[] {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const cases = join(dir, 'fixtures', 'cases');
    if (existsSync(cases)) {
      const decoder = new MsgpackDecoder();
      const messages: unknown[] = [];
      for (const file of readdirSync(cases)
        .filter((f) => f.endsWith('.frame'))
        .sort()) {
        const frame = readFileSync(join(cases, file));
        if (frame.length > maxFrameBytes) continue;
        try {
          messages.push(decoder.decode(frame.subarray(4)).value);
        } catch {
          // A bin fixture (native bytes): JSON cannot carry it, so it is not a fair codec comparison.
        }
      }
      return messages;
    }
    dir = dirname(dir);
  }
  return [];
}

/** Quick mode's largest golden frame. */
const QUICK_GOLDEN_FRAME_BYTES = 128 * 1024;

export function codecPayloads(full: boolean): CodecPayload[] {
  const payloads: CodecPayload[] = [];
  const golden = goldenMessages(full ? Infinity : QUICK_GOLDEN_FRAME_BYTES);
  if (golden.length > 0) payloads.push({ name: 'golden', title: `golden fixtures (${golden.length} messages)`, json: golden, msgpack: golden, bin: false });
  const small = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'small', arguments: { n: 7, tag: 'bench' } } };
  payloads.push({ name: 'small', title: 'small tools/call request', json: [small], msgpack: [small], bin: false });
  const tools = response(8, toolList(3));
  payloads.push({ name: 'tools-1KB', title: 'tools/list result, 3 tools (about 1 KB)', json: [tools], msgpack: [tools], bin: false });
  const diff = response(1, { content: [{ type: 'text', text: diffText(64 * 1024) }] });
  payloads.push({ name: 'text-64k', title: 'diff text result, 64 KB', json: [diff], msgpack: [diff], bin: false });
  for (const size of full ? [50_000, 1_000_000] : [50_000]) {
    const context = reviewContext(size);
    const message = response(2, { content: [{ type: 'text', text: 'review' }], structuredContent: context });
    payloads.push({ name: `object-${label(size)}`, title: `review context, ${label(size)}`, json: [message], msgpack: [message], bin: false });
  }
  const rows = response(4, { content: [{ type: 'text', text: 'listing' }], structuredContent: shortStringRows(50_000) });
  payloads.push({ name: 'short-strings-50KB', title: 'listing of short strings, 50 KB', json: [rows], msgpack: [rows], bin: false });
  const embedding = response(5, { content: [{ type: 'text', text: 'embedding' }], structuredContent: embeddingResult() });
  payloads.push({ name: 'embedding-1536', title: 'embedding, 1,536 floats and 1,536 integers', json: [embedding], msgpack: [embedding], bin: false });
  const series = response(6, { content: [{ type: 'text', text: 'series' }], structuredContent: seriesResult() });
  payloads.push({ name: 'series-100k', title: 'series, 100,000 timestamps and float values', json: [series], msgpack: [series], bin: false });
  for (const [name, size] of [
    ['media-1m', 1024 * 1024],
    ['media-5m', 5 * 1024 * 1024],
  ] as const) {
    const bytes = mediaBytes(size);
    payloads.push({
      name,
      title: `image result, ${size >> 20} MiB (JSON: base64 text; MessagePack: one bin)`,
      json: [response(3, { content: [{ type: 'image', mimeType: 'image/png', data: Buffer.from(bytes).toString('base64') }] })],
      msgpack: [response(3, { content: [{ type: 'image', mimeType: 'image/png', data: bytes }] })],
      bin: true,
    });
  }
  return payloads;
}

function label(bytes: number): string {
  return bytes >= 1_000_000 ? `${bytes / 1_000_000}MB` : `${bytes / 1000}KB`;
}

interface CodecRound {
  encodeTime: number;
  decodeTime: number;
  codecTime: number;
  encodedBytes: number;
}

const CODEC_METRICS: Array<[MetricKey, (r: CodecRound) => number]> = [
  ['codecTime', (r) => r.codecTime],
  ['encodeTime', (r) => r.encodeTime],
  ['decodeTime', (r) => r.decodeTime],
  ['encodedBytes', (r) => r.encodedBytes],
];

/**
 * Venue 1: the codecs alone, in this process, with tinybench. Each round benchmarks every codec once
 * (order reversed on odd rounds); ratios against JSON are taken round by round. For media, JSON's cost
 * includes the base64 step a JSON peer cannot avoid.
 */
export async function runCodecPayload(payload: CodecPayload, budget: CodecBudget, runtime: string, progress: Progress): Promise<ScenarioResult> {
  const { rounds, timeMs } = budget;
  const all = codecs(payload.bin).filter((c) => budget.codecs === 'all' || c.id === 'json' || c.id === SHIPPED);
  const samples = new Map<string, CodecRound[]>(all.map((c) => [c.id, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? all : [...all].reverse();
    progress.update(`codec/${payload.name}: round ${round + 1}/${rounds}`);
    const bench = new Bench({ time: timeMs, iterations: budget.minIterations, warmupTime: Math.min(50, timeMs), warmupIterations: Math.min(2, budget.minIterations) });
    for (const codec of order) {
      const source = codec.form === 'json' ? payload.json : payload.msgpack;
      const encoded = source.map((m) => copy(codec.encode(m)));
      const toBase64 = codec.form === 'json' && payload.bin;
      bench.add(`${codec.id} encode`, () => {
        for (const m of source) codec.encode(m);
      });
      bench.add(`${codec.id} decode`, () => {
        for (const b of encoded) {
          const value = codec.decode(b) as { result?: { content?: Array<{ data?: string }> } };
          // A JSON peer still holds base64 text: turning it into bytes is part of its decode.
          if (toBase64) Buffer.from(value.result!.content![0]!.data!, 'base64');
        }
      });
    }
    await bench.run();
    for (const codec of all) {
      const encodeTime = periodOf(bench, `${codec.id} encode`);
      const decodeTime = periodOf(bench, `${codec.id} decode`);
      const source = codec.form === 'json' ? payload.json : payload.msgpack;
      const encodedBytes = source.reduce((sum: number, m) => sum + codec.encode(m).length, 0);
      samples.get(codec.id)!.push({ encodeTime, decodeTime, codecTime: encodeTime + decodeTime, encodedBytes });
    }
    progress.tick();
  }
  const variants: VariantResult[] = all.map((codec) => {
    const values: VariantResult['values'] = {};
    for (const [key, read] of CODEC_METRICS) values[key] = median(samples.get(codec.id)!.map(read));
    return { id: codec.id, label: codec.label, values };
  });
  return {
    name: `codec/${payload.name}`,
    venue: 'codec',
    title: payload.title,
    runtime,
    transport: 'in-process',
    clients: 1,
    rounds,
    callsPerRound: 0,
    warmupCalls: 0,
    variants,
    comparisons: codecComparisons(new Set(samples.keys())).map(([candidate, baseline]) => compareRounds(candidate, baseline, samples.get(candidate)!, samples.get(baseline)!, CODEC_METRICS)),
    notes: [],
  };
}

function periodOf(bench: Bench, name: string): number {
  const task = bench.getTask(name);
  const result = task?.result as { state?: string; period?: number; error?: unknown } | undefined;
  if (result?.state !== 'completed' || result.period === undefined) {
    throw new Error(`codec benchmark "${name}" did not complete: ${String((result as { error?: unknown })?.error ?? result?.state)}`);
  }
  return result.period;
}

function copy(bytes: Uint8Array): Uint8Array {
  return Uint8Array.prototype.slice.call(bytes);
}
