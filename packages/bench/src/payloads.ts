/**
 * Deterministic, benchmark-only payloads. The same arguments always give the same value, so every
 * variant and every run sends identical content.
 */

/** mulberry32: a tiny seeded PRNG (deterministic across runtimes). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'const',
  'return',
  'value',
  'client',
  'server',
  'message',
  'frame',
  'buffer',
  'length',
  'error',
  'result',
  'request',
  'handler',
  'stream',
  'encode',
  'decode',
  'payload',
  'session',
  'context',
  'review',
  'await',
  'import',
  'export',
  'function',
  'string',
  'number',
  'object',
  'array',
  'if',
  'else',
  'null',
  'true',
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function codeLine(random: () => number): string {
  const indent = '  '.repeat(Math.floor(random() * 4));
  const count = 3 + Math.floor(random() * 9);
  const words: string[] = [];
  for (let i = 0; i < count; i++) words.push(pick(random, WORDS));
  return indent + words.join(' ') + (random() < 0.5 ? ';' : ' {');
}

/** A unified diff of about `bytes` characters (text-heavy tool result, like git_diff). */
export function diffText(bytes: number, seed = 1): string {
  const random = seededRandom(seed);
  const parts: string[] = [];
  let size = 0;
  let file = 0;
  while (size < bytes) {
    const name = `src/module${file++}/${pick(random, WORDS)}.ts`;
    let chunk = `diff --git a/${name} b/${name}\nindex 3f2a1b0..9c8d7e6 100644\n--- a/${name}\n+++ b/${name}\n`;
    const hunks = 1 + Math.floor(random() * 4);
    for (let h = 0; h < hunks; h++) {
      const start = 1 + Math.floor(random() * 400);
      chunk += `@@ -${start},12 +${start},13 @@\n`;
      for (let l = 0; l < 12; l++) {
        const roll = random();
        chunk += (roll < 0.15 ? '-' : roll < 0.32 ? '+' : ' ') + codeLine(random) + '\n';
      }
    }
    parts.push(chunk);
    size += chunk.length;
  }
  return parts.join('').slice(0, bytes);
}

const LEVELS = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'];

/** Log lines of about `bytes` characters (text-heavy tool result, like git_log or a service log). */
export function logText(bytes: number, seed = 2): string {
  const random = seededRandom(seed);
  const lines: string[] = [];
  let size = 0;
  let t = Date.UTC(2026, 0, 1);
  while (size < bytes) {
    t += Math.floor(random() * 5000);
    const line = `${new Date(t).toISOString()} ${pick(random, LEVELS)} [${pick(random, WORDS)}-${Math.floor(random() * 16)}] ${codeLine(random).trim()} id=${Math.floor(random() * 1e9).toString(16)} took=${Math.floor(random() * 900)}ms`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n').slice(0, bytes);
}

export interface ReviewLine {
  kind: 'context' | 'add' | 'remove';
  oldLine: number | null;
  newLine: number | null;
  text: string;
}

export interface ReviewContext {
  review: { id: string; title: string; author: string; baseRef: string; headRef: string; createdAt: string; labels: string[]; draft: boolean };
  files: Array<{
    path: string;
    status: 'modified' | 'added' | 'deleted';
    additions: number;
    deletions: number;
    hunks: Array<{ header: string; oldStart: number; newStart: number; lines: ReviewLine[] }>;
    annotations: Array<{ line: number; severity: 'info' | 'warning' | 'error'; rule: string; message: string; resolved: boolean }>;
  }>;
  metadata: { generator: string; fileCount: number; lineCount: number; checks: Array<{ name: string; status: string; durationMs: number }> };
}

/**
 * The object-heavy venue's payload: a code-review context (files, hunks, lines, annotations, metadata) whose
 * JSON text is about `bytes` long. Many small objects and short strings, the shape of structuredContent.
 */
export function reviewContext(bytes: number, seed = 3): ReviewContext {
  const random = seededRandom(seed);
  const context: ReviewContext = {
    review: {
      id: 'R-' + Math.floor(random() * 1e6),
      title: 'Refactor the ' + pick(random, WORDS) + ' pipeline',
      author: 'dev' + Math.floor(random() * 100),
      baseRef: 'main',
      headRef: 'feature/' + pick(random, WORDS),
      createdAt: '2026-01-01T00:00:00.000Z',
      labels: ['bench', pick(random, WORDS)],
      draft: false,
    },
    files: [],
    metadata: { generator: 'mcp-msgpack-bench', fileCount: 0, lineCount: 0, checks: [] },
  };
  let size = 400;
  let lineCount = 0;
  while (size < bytes) {
    const file: ReviewContext['files'][number] = {
      path: `src/${pick(random, WORDS)}/${pick(random, WORDS)}${context.files.length}.ts`,
      status: pick(random, ['modified', 'modified', 'added', 'deleted'] as const),
      additions: 0,
      deletions: 0,
      hunks: [],
      annotations: [],
    };
    const hunkCount = 1 + Math.floor(random() * 3);
    for (let h = 0; h < hunkCount && size < bytes; h++) {
      let oldLine = 1 + Math.floor(random() * 300);
      let newLine = oldLine;
      const hunk = { header: `@@ -${oldLine},10 +${newLine},10 @@`, oldStart: oldLine, newStart: newLine, lines: [] as ReviewLine[] };
      for (let l = 0; l < 10; l++) {
        const roll = random();
        const kind: ReviewLine['kind'] = roll < 0.2 ? 'remove' : roll < 0.4 ? 'add' : 'context';
        const line: ReviewLine = {
          kind,
          oldLine: kind === 'add' ? null : oldLine++,
          newLine: kind === 'remove' ? null : newLine++,
          text: codeLine(random),
        };
        if (kind === 'add') file.additions++;
        if (kind === 'remove') file.deletions++;
        hunk.lines.push(line);
        size += 50 + line.text.length;
        lineCount++;
      }
      file.hunks.push(hunk);
      size += 60;
    }
    const annotationCount = Math.floor(random() * 3);
    for (let a = 0; a < annotationCount; a++) {
      file.annotations.push({
        line: 1 + Math.floor(random() * 300),
        severity: pick(random, ['info', 'warning', 'error'] as const),
        rule: `${pick(random, WORDS)}/${pick(random, WORDS)}`,
        message: `Consider ${pick(random, WORDS)} before ${pick(random, WORDS)} ${pick(random, WORDS)}.`,
        resolved: random() < 0.3,
      });
      size += 140;
    }
    context.files.push(file);
    size += 120;
  }
  context.metadata.fileCount = context.files.length;
  context.metadata.lineCount = lineCount;
  context.metadata.checks = [
    { name: 'lint', status: 'passed', durationMs: 1200 },
    { name: 'test', status: 'passed', durationMs: 53000 },
  ];
  return context;
}

/** Deterministic pseudo-random bytes (incompressible, like real media). */
export function mediaBytes(bytes: number, seed = 4): Uint8Array {
  const random = seededRandom(seed);
  const out = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i += 4) {
    const word = Math.floor(random() * 4294967296);
    out[i] = word & 0xff;
    if (i + 1 < bytes) out[i + 1] = (word >>> 8) & 0xff;
    if (i + 2 < bytes) out[i + 2] = (word >>> 16) & 0xff;
    if (i + 3 < bytes) out[i + 3] = (word >>> 24) & 0xff;
  }
  return out;
}

/** A tools/list result with `count` tools, each with a small input schema (about 330 bytes of JSON a tool). */
export function toolList(count: number, seed = 5): { tools: unknown[] } {
  const random = seededRandom(seed);
  const tools = Array.from({ length: count }, (_, i) => ({
    name: `${pick(random, WORDS)}_${pick(random, WORDS)}_${i}`,
    description: `Runs ${pick(random, WORDS)} on a ${pick(random, WORDS)} and returns the ${pick(random, WORDS)}.`,
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string', description: 'File path' }, limit: { type: 'number' }, recursive: { type: 'boolean' } },
      required: ['path'],
    },
    annotations: { readOnlyHint: random() < 0.5 },
  }));
  return { tools };
}

/**
 * A listing whose rows are arrays of short strings (kind, name, mode, size, owner) of about `bytes` bytes of
 * JSON: the shape where per-string cost decides, as in directory listings and tables.
 */
export function shortStringRows(bytes: number, seed = 6): { rows: string[][] } {
  const random = seededRandom(seed);
  const rows: string[][] = [];
  let size = 0;
  while (size < bytes) {
    const row = [
      pick(random, ['file', 'file', 'dir', 'link']),
      `${pick(random, WORDS)}${rows.length % 100}.ts`,
      pick(random, ['rw-', 'r--', 'rwx']),
      `${1 + Math.floor(random() * 900)}K`,
      pick(random, ['root', 'dev', 'ci']),
    ];
    rows.push(row);
    size += row.reduce((sum, s) => sum + s.length + 3, 2);
  }
  return { rows };
}

/** An embedding-sized tool result: the vector (float32 values, as models emit them) and its token ids. */
export interface EmbeddingResult {
  model: string;
  dimensions: number;
  embedding: number[];
  tokenIds: number[];
}

export const EMBEDDING_DIMENSIONS = 1536;

/** 1,536 floats (float32-representable, about ±0.1 like a normalised embedding) and 1,536 integer token ids. */
export function embeddingResult(seed = 7): EmbeddingResult {
  const random = seededRandom(seed);
  const embedding: number[] = [];
  const tokenIds: number[] = [];
  for (let i = 0; i < EMBEDDING_DIMENSIONS; i++) {
    embedding.push(Math.fround((random() - 0.5) * 0.2));
    tokenIds.push(Math.floor(random() * 100_000));
  }
  return { model: 'bench-embedding-1536', dimensions: EMBEDDING_DIMENSIONS, embedding, tokenIds };
}

/** A time series as a tool returns it: columns of timestamps (integer ms) and float values. */
export interface SeriesResult {
  metric: string;
  unit: string;
  timestamps: number[];
  values: number[];
}

export const SERIES_POINTS = 100_000;

/**
 * `points` samples one second apart from a fixed start (integers near 1.7e12, as epoch milliseconds are),
 * and a random walk of full-precision doubles (computed values, not rounded ones).
 */
export function seriesResult(points = SERIES_POINTS, seed = 8): SeriesResult {
  const random = seededRandom(seed);
  const start = 1_767_225_600_000;
  const timestamps: number[] = [];
  const values: number[] = [];
  let value = 20;
  for (let i = 0; i < points; i++) {
    timestamps.push(start + i * 1000);
    value += (random() - 0.5) * 0.4;
    values.push(value);
  }
  return { metric: 'bench.temperature', unit: 'celsius', timestamps, values };
}
