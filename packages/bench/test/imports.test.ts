// The bench's modules import each other without loops (issue 22: report/summary.ts and report/table.ts
// imported each other). Reads the sources' relative imports, type-only ones included.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'(\.{1,2}\/[^']+)'/gm)].map((m) => resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')));
}

describe('bench module graph', () => {
  it('has no import loop', () => {
    const graph = new Map(sources(SRC).map((file) => [file, importsOf(file)]));
    assert.ok(graph.size > 30, `read ${graph.size} modules`);
    const done = new Set<string>();
    const loops: string[] = [];
    const visit = (file: string, path: string[]) => {
      const at = path.indexOf(file);
      if (at >= 0) return void loops.push([...path.slice(at), file].map((f) => relative(SRC, f)).join(' -> '));
      if (done.has(file)) return;
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
      done.add(file);
    };
    for (const file of graph.keys()) visit(file, []);
    assert.deepEqual(loops, []);
  });
});
