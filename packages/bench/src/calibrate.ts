// --calibrate: what the per-message encoding policy's thresholds (SPEC.md 9.6, the transport's
// 'cheapest-cpu') rest on, measured on this runtime: JSON against the shipped MessagePack codec, encode +
// decode of one reply, per shape and size, in interleaved rounds (the codec venue's harness and stats). Where
// msgpack / JSON crosses 1.0 along a row of sizes is where a policy should switch.
import { diffText, reviewContext, seededRandom, shortStringRows, toolList } from './payloads.js';
import type { Progress } from './report/progress.js';
import { textTable } from './report/columns.js';
import { formatBytes, formatRatio, formatValue, VERDICT_MARK } from './report/format.js';
import type { ScenarioResult } from './results.js';
import { runCodecPayload, type CodecBudget, type CodecPayload } from './scenarios/codec.js';

const result = (id: number, value: unknown) => ({ jsonrpc: '2.0', id, result: value });
const textResult = (text: string) => result(1, { content: [{ type: 'text', text }] });
const structured = (label: string, value: unknown) => result(2, { content: [{ type: 'text', text: label }], structuredContent: value });

/** Plain prose: no character JSON escapes, JSON's best case for a string. */
function prose(chars: number): string {
  const random = seededRandom(9);
  const words = ['the', 'server', 'returns', 'a', 'list', 'of', 'files', 'and', 'their', 'sizes', 'when', 'asked', 'for'];
  let out = '';
  while (out.length < chars) out += `${words[Math.floor(random() * words.length)]} `;
  return out.slice(0, chars);
}

function numbers(count: number, seed: number, integers: boolean): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => (integers ? Math.floor(random() * 100_000) : random() * 2 - 1));
}

/** The shapes the policy tells apart, each at the sizes where its pick may change. */
export function calibrationPayloads(full: boolean): CodecPayload[] {
  const messages: Array<[string, unknown]> = [
    ['small-request', { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'small', arguments: { n: 7, tag: 'bench' } } }],
    ['small-result', result(7, { content: [{ type: 'text', text: 'ok: 7' }] })],
    ['tools-list-3', result(8, toolList(3))],
  ];
  for (const chars of full ? [128, 256, 512, 1024, 2048, 4096, 16384, 65536] : [256, 2048, 16384]) {
    messages.push([`code-text-${chars}`, textResult(diffText(chars))], [`prose-text-${chars}`, textResult(prose(chars))]);
  }
  for (const kb of full ? [50, 100, 200, 400, 1000] : [50, 400]) messages.push([`records-${kb}KB`, structured('review', reviewContext(kb * 1000))]);
  messages.push(['short-strings-50KB', structured('listing', shortStringRows(50_000))]);
  messages.push(['embedding-1536', structured('embedding', { floats: numbers(1536, 11, false), ints: numbers(1536, 12, true) })]);
  if (full) {
    const t = numbers(100_000, 13, true).map((v, i) => 1_700_000_000 + i * 60 + (v % 7));
    messages.push(['series-100k', structured('series', { t, v: numbers(100_000, 14, false) })]);
  }
  return messages.map(([name, message]) => ({ name, title: name, json: [message], msgpack: [message], bin: false }));
}

/** Every calibration shape through the codec venue's harness: JSON and the shipped decode path only. */
export async function runCalibration(full: boolean, runtime: string, progress: Progress, smoke = false): Promise<ScenarioResult[]> {
  const budget: CodecBudget = smoke ? { rounds: 2, timeMs: 2, minIterations: 2, codecs: 'shipped' } : { rounds: full ? 7 : 3, timeMs: full ? 150 : 30, minIterations: 2, codecs: 'shipped' };
  const payloads = calibrationPayloads(full);
  progress.begin(payloads.length * budget.rounds);
  const results: ScenarioResult[] = [];
  for (const [index, payload] of payloads.entries()) {
    progress.scenario(`calibrate/${payload.name}`, index + 1, payloads.length);
    results.push({ ...(await runCodecPayload(payload, budget, runtime, progress)), name: `calibrate/${payload.name}` });
  }
  progress.end();
  return results;
}

/** One row per shape: bytes on each wire, encode + decode on each, msgpack / JSON (median, range, verdict). */
export function renderCalibration(results: readonly ScenarioResult[]): string {
  const rows = results.map((s) => {
    const [json, msgpack] = [s.variants.find((v) => v.id === 'json'), s.variants.find((v) => v.id !== 'json')];
    const ratio = s.comparisons[0]?.metrics.codecTime;
    const cheaper = ratio ? (ratio.verdict === 'ties' ? 'either' : ratio.ratio.median < 1 ? 'msgpack' : 'json') : '-';
    return [
      s.name.replace(/^calibrate\//, ''),
      `${formatBytes(json?.values.encodedBytes ?? 0)} / ${formatBytes(msgpack?.values.encodedBytes ?? 0)}`,
      formatValue('codecTime', json?.values.codecTime),
      formatValue('codecTime', msgpack?.values.codecTime),
      ratio ? `${formatRatio(ratio.ratio)} ${VERDICT_MARK[ratio.verdict]}` : '-',
      cheaper,
    ];
  });
  const runtime = results[0]?.runtime ?? '';
  return [
    `CALIBRATION (${runtime}): encode + decode of one reply, JSON (stringify, UTF-8, parse) against MessagePack`,
    `(${results[0]?.variants.find((v) => v.id !== 'json')?.label ?? 'the shipped codec'}), medians over interleaved rounds; the ratio's`,
    'range and verdict as everywhere in the bench (= a tie: within ±5% or the rounds disagree).',
    '',
    textTable(['shape', 'bytes JSON / MessagePack', 'JSON', 'MessagePack', 'MessagePack / JSON', 'cheaper'], rows),
    '',
  ].join('\n');
}
