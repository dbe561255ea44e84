// The server's folders (media/, security/, text/, tools/, and the top) and its modules import one another in
// one direction only: a loop between folders (media/ reaching up into tools/, which builds on media/) or
// between two modules, even through a type import, makes neither understandable, or testable, without the
// other. This reads the sources and fails on any loop.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../../src/', import.meta.url));
const IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const folderOf = (path: string) => relative(src, dirname(path)) || '.';
const moduleOf = (path: string) => relative(src, path).replace(/\.[jt]s$/, '');

/** Unit (a folder or a module) -> the other units it imports, each with one import that shows it. */
function importGraph(unitOf: (path: string) => string): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of sources(src)) {
    const from = unitOf(file);
    const edges = graph.get(from) ?? new Map<string, string>();
    graph.set(from, edges);
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const to = unitOf(normalize(join(dirname(file), match[1]!)));
      if (to !== from && !edges.has(to)) edges.set(to, `${relative(src, file)} -> ${match[1]}`);
    }
  }
  return graph;
}

/** Every loop, as the imports that make it (depth-first search, each loop reported once from its first folder). */
function loops(graph: Map<string, Map<string, string>>): string[][] {
  const found: string[][] = [];
  const seen = new Set<string>();
  const walk = (folder: string, path: string[], via: string[]) => {
    for (const [next, evidence] of graph.get(folder) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) {
        const key = [...path.slice(at)].sort().join(',');
        if (!seen.has(key)) {
          seen.add(key);
          found.push([...via.slice(at), evidence]);
        }
      } else walk(next, [...path, next], [...via, evidence]);
    }
  };
  for (const folder of graph.keys()) walk(folder, [folder], []);
  return found;
}

describe('import loops', () => {
  it('finds the folders', () => {
    assert.ok(importGraph(folderOf).size >= 4);
    assert.ok(importGraph(moduleOf).size >= 20);
  });

  it('no folder imports, directly or through others, a folder that imports it', () => {
    assert.deepEqual(loops(importGraph(folderOf)), []);
  });

  it('no module imports, directly or through others, a module that imports it (type imports included)', () => {
    assert.deepEqual(loops(importGraph(moduleOf)), []);
  });

  it('finds a loop when there is one (the check itself)', () => {
    const graph = new Map([
      ['media', new Map([['tools', 'media/read-media.ts -> ../tools/context.js']])],
      ['tools', new Map([['media', 'tools/media-tool.ts -> ../media/media-content.js']])],
    ]);
    assert.equal(loops(graph).length, 1);
  });
});
