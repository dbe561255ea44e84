// What the compression venue replays (issue 41): tool results recorded from real MCP servers
// (corpus/*.jsonl, written by record-corpus.ts) and the benchmark's synthetic shapes beside them. The replay
// server (servers/replay-app.ts) answers `replay { corpus, index }` with one of them; the venue's scenarios
// (scenarios/compression.ts) and the in-process coder table (compression/codings.ts) read the same lists.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { diffText, reviewContext, shortStringRows, toolList } from '../payloads.js';

/** A recorded request and the server's reply, one per line of a corpus file. */
export interface RecordedPair {
  request: { method: string; params?: { name?: string } };
  reply: { result?: Record<string, unknown> };
}

/** The recorded corpora, by the name the scenarios use, and their files in packages/bench/corpus. */
export const RECORDED_CORPORA: Record<string, string> = {
  'fs-session': 'filesystem-session.jsonl',
  'everything-session': 'everything-session.jsonl',
};

/** The synthetic shapes (payloads.ts: a word list through a PRNG, which compresses unlike real traffic), each a tool result. */
export const SYNTHETIC_SHAPES: Record<string, () => Record<string, unknown>> = {
  'objects-50KB': () => ({ content: [{ type: 'text', text: 'review' }], structuredContent: reviewContext(50_000) }),
  'rows-50KB': () => ({ content: [{ type: 'text', text: 'rows' }], structuredContent: shortStringRows(50_000) }),
  'tools-40': () => ({ content: [{ type: 'text', text: 'tools' }], structuredContent: toolList(40) }),
  'text-50KB': () => ({ content: [{ type: 'text', text: diffText(50_000) }] }),
};

/** A corpus file's path: packages/bench/corpus, from the built module (dist/esm/compression). */
export function corpusPath(file: string): string {
  return fileURLToPath(new URL(`../../../corpus/${file}`, import.meta.url));
}

/** Every recorded pair of a corpus, in the order recorded. */
export function recordedPairs(corpus: string): RecordedPair[] {
  const file = RECORDED_CORPORA[corpus];
  if (!file) throw new Error(`no recorded corpus "${corpus}" (have ${Object.keys(RECORDED_CORPORA).join(', ')})`);
  return readFileSync(corpusPath(file), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RecordedPair);
}

/** The tool results a corpus or shape replays, by index: a recorded session's tools/call results, or one synthetic result. */
export function replayedResults(corpus: string): Record<string, unknown>[] {
  const shape = SYNTHETIC_SHAPES[corpus];
  if (shape) return [shape()];
  return recordedPairs(corpus)
    .filter((pair) => pair.request.method === 'tools/call' && pair.reply.result !== undefined)
    .map((pair) => pair.reply.result!);
}
