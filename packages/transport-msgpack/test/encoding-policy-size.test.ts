// The cost policy's records rule reads a message's estimated size (codec/encoding-policy.ts): the walk reads
// at most 512 values, so a big message's value count is extrapolated from the arrays it read in part. The
// policy is pure, so each runtime's thresholds are passed in and both are tested on either runtime.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
// Internal (not exported): tests import such modules by relative path to the sources, compiled with them.
import { chooseWire, shapeOf } from '../src/codec/encoding-policy.js';
import { bunRuntime } from '../src/runtime/bun.js';
import { nodeRuntime } from '../src/runtime/node.js';

/** A small deterministic generator, so the records vary (1-3 hunks a file, as a diff does) yet repeat. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** A review-shaped result: files, each with 1-3 hunks of 10 line records, about `bytes` of JSON. */
function recordsResult(bytes: number, seed: number) {
  const random = seeded(seed);
  const files: unknown[] = [];
  let size = 0;
  while (size < bytes) {
    const hunks = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, h) => ({
      header: `@@ -${h * 10},10 +${h * 10},10 @@`,
      lines: Array.from({ length: 10 }, (_, l) => ({ kind: random() < 0.6 ? 'context' : 'add', oldLine: l, newLine: l + 1, text: `  const value${l} = compute(${Math.floor(random() * 1000)});` })),
    }));
    const file = { path: `src/module${files.length}.ts`, additions: hunks.length * 4, hunks };
    size += JSON.stringify(file).length;
    files.push(file);
  }
  return { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'review' }], structuredContent: { files, metadata: { fileCount: files.length } } } };
}

/** Every value of a message, counted the way the walk counts them. */
function countValues(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countValues(item), 1);
  if (value !== null && typeof value === 'object') return Object.values(value).reduce((sum: number, item) => sum + countValues(item), 1);
  return 1;
}

const never = () => false;

describe('the cost policy: records by estimated size', () => {
  it('estimates the value count of nested record arrays within a factor of 2, from a 512-value walk', () => {
    for (const bytes of [20_000, 50_000, 200_000, 1_000_000]) {
      for (const seed of [1, 2, 3, 4, 5]) {
        const message = recordsResult(bytes, seed);
        const shape = shapeOf(message);
        const real = countValues(message);
        assert.equal(shape.truncated, true);
        assert.ok(shape.values <= 512);
        const ratio = shape.estimatedValues / real;
        assert.ok(ratio >= 0.5 && ratio <= 2, `${bytes} B, seed ${seed}: estimated ${shape.estimatedValues}, real ${real}`);
      }
    }
  });

  it('counts exactly what it reads whole', () => {
    const message = recordsResult(1_000, 7);
    const shape = shapeOf(message);
    assert.equal(shape.truncated, false);
    assert.equal(shape.estimatedValues, countValues(message));
  });

  it("Node's thresholds: a 1 MB record message goes as MessagePack, a 50 KB one as JSON", () => {
    const breakEven = nodeRuntime.encodingBreakEven;
    assert.equal(chooseWire(recordsResult(1_000_000, 1), 'cheapest-cpu', breakEven, never), 'msgpack');
    assert.equal(chooseWire(recordsResult(50_000, 1), 'cheapest-cpu', breakEven, never), 'json');
  });

  it("Bun's thresholds: records go as JSON at every size", () => {
    const breakEven = bunRuntime.encodingBreakEven;
    for (const bytes of [50_000, 1_000_000]) assert.equal(chooseWire(recordsResult(bytes, 1), 'cheapest-cpu', breakEven, never), 'json');
  });

  it('the size read is the whole message, not the walk: a big array of records beyond the walk counts', () => {
    const row = (i: number) => ({ id: i, name: `row ${i}`, ok: true });
    const table = { ...nodeRuntime.encodingBreakEven, keyDenseMsgpackValues: 10_000 };
    const message = (rows: number) => ({ jsonrpc: '2.0', id: 1, result: { structuredContent: { rows: Array.from({ length: rows }, (_, i) => row(i)) } } });
    // 4 values a row: 2,000 rows is about 8,000 values, 4,000 rows about 16,000; the walk reads 512 of either.
    assert.equal(chooseWire(message(2_000), 'cheapest-cpu', table, never), 'json');
    assert.equal(chooseWire(message(4_000), 'cheapest-cpu', table, never), 'msgpack');
  });
});

describe("the cost policy: Bun's shorter walk", () => {
  /** chooseWire under `breakEven`, and how many items of the message's one big array it read. */
  function chooseCounting(breakEven: typeof bunRuntime.encodingBreakEven, items: unknown[]): { wire: string; read: number } {
    let read = 0;
    const counted = new Proxy(items, { get: (target, key, receiver) => (typeof key === 'string' && /^\d+$/.test(key) && read++, Reflect.get(target, key, receiver)) });
    const wire = chooseWire({ jsonrpc: '2.0', id: 1, result: { structuredContent: { counted } } }, 'cheapest-cpu', breakEven, never);
    return { wire, read };
  }

  it('reads at most 256 values of a large message on Bun (512 on Node), and picks what the 512-value walk picks', () => {
    const bun = bunRuntime.encodingBreakEven;
    const records = Array.from({ length: 5_000 }, (_, i) => ({ path: `src/f${i}.ts`, additions: i, deleted: false }));
    assert.ok(chooseCounting(bun, records).read <= 256 / 4, 'records: a quarter of 256 values, 4 to a record');
    assert.ok(chooseCounting(nodeRuntime.encodingBreakEven, records).read > 256 / 4);
    const numbers = Array.from({ length: 100_000 }, (_, i) => i / 7);
    assert.ok(chooseCounting(bun, numbers).read <= 256);
    // The benchmark's shapes, and the edges of the small rule, decide alike with either walk.
    const fullWalk = { ...bun, walkValues: 512 };
    const text = { type: 'text', text: 'x'.repeat(600) };
    const shapes: unknown[] = [
      recordsResult(50_000, 1),
      recordsResult(1_000_000, 2),
      { result: { content: [{ type: 'text', text: 'ok bench 1' }] } },
      { result: { content: [text] } },
      { result: { structuredContent: { embedding: numbers.slice(0, 1536), tokenIds: Array.from({ length: 1536 }, (_, i) => i) } } },
      { result: { structuredContent: { rows: Array.from({ length: 6_000 }, (_, i) => `row ${i}`) } } },
      { result: { rows: Array.from({ length: 253 }, () => 1) } },
      { result: { rows: Array.from({ length: 254 }, () => 1) } },
      { result: { rows: Array.from({ length: 400 }, () => 1) } },
    ];
    for (const [index, shape] of shapes.entries()) assert.equal(chooseWire(shape, 'cheapest-cpu', bun, never), chooseWire(shape, 'cheapest-cpu', fullWalk, never), `shape ${index}`);
  });
});
