// Everything under packages/bench reaches this repository's packages through their public exports only:
// no compiled file by path (dist/esm/...), no module another package keeps private (codec/encoding-policy.js),
// so that when those move, the bench still builds and the imports say so (issue 40: seven measure scripts
// imported dist/esm files, three reached private modules, and nothing failed when they moved).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const BENCH = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGES = resolve(BENCH, '..');
/** What the bench's own sources are; build/ and dist/ are compiled from them. */
const SKIP = new Set(['node_modules', 'build', 'dist']);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.(ts|mjs|js)$/.test(name) ? [path] : [];
  });
}

/** Every module specifier a file names: static imports and exports, and import() of a string literal. */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/gm), ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g), ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)];
  return found.map((m) => m[1]!);
}

/** This repository's packages, by name: the subpaths each exports. */
function ourPackages(): Map<string, Set<string>> {
  const map = new Map<string, Set<string>>();
  for (const dir of readdirSync(PACKAGES)) {
    try {
      const manifest = JSON.parse(readFileSync(join(PACKAGES, dir, 'package.json'), 'utf8')) as { name: string; exports?: Record<string, unknown> };
      map.set(manifest.name, new Set(Object.keys(manifest.exports ?? { '.': '' })));
    } catch {
      // Not a package.
    }
  }
  return map;
}

/** Why a specifier is not a public way in, or undefined when it is. */
export function privateReach(file: string, specifier: string, packages: ReadonlyMap<string, ReadonlySet<string>>): string | undefined {
  // The package's own command starts its compiled CLI: what package.json's "bin" is for.
  if (relative(BENCH, file) === join('bin', 'mcp-msgpack-bench.js') && specifier === '../dist/esm/cli.js') return undefined;
  if (specifier.startsWith('.')) {
    const target = resolve(dirname(file), specifier);
    if (/(^|\/)dist\//.test(relative(BENCH, target)) || specifier.includes('/dist/')) return 'a compiled file by path';
    const inPackages = relative(PACKAGES, target);
    if (!inPackages.startsWith('..') && !inPackages.startsWith(`${relative(PACKAGES, BENCH).replace(/\/$/, '')}/`)) return "another package's file by path";
    return undefined;
  }
  for (const [name, exported] of packages) {
    if (specifier !== name && !specifier.startsWith(`${name}/`)) continue;
    const subpath = specifier === name ? '.' : `.${specifier.slice(name.length)}`;
    return exported.has(subpath) ? undefined : `not an export of ${name}`;
  }
  return undefined;
}

describe('packages/bench imports only public exports', () => {
  const packages = ourPackages();

  it('the rule catches what it is for', () => {
    const here = join(BENCH, 'measure', 'x.mjs');
    assert.ok(packages.has('mcp-msgpack-transport'), `read ${[...packages.keys()]}`);
    assert.equal(privateReach(here, '../dist/esm/payloads.js', packages), 'a compiled file by path');
    assert.equal(privateReach(here, '../../transport-msgpack/dist/esm/codec/encoding-policy.js', packages), 'a compiled file by path');
    assert.equal(privateReach(here, '../../transport-msgpack/src/codec/encoding-policy.ts', packages), "another package's file by path");
    assert.equal(privateReach(here, 'mcp-msgpack-transport/dist/esm/codec/json-codec.js', packages), 'not an export of mcp-msgpack-transport');
    assert.equal(privateReach(here, 'mcp-msgpack-transport/wire', packages), undefined);
    assert.equal(privateReach(here, 'mcp-msgpack-bench', packages), undefined);
    assert.equal(privateReach(here, './lib/child.mjs', packages), undefined);
    assert.equal(privateReach(here, '@modelcontextprotocol/sdk/client/index.js', packages), undefined);
  });

  it('no file under packages/bench imports a compiled file by path or a private module', () => {
    const all = files(BENCH);
    assert.ok(all.length > 40, `read ${all.length} files`);
    const found: string[] = [];
    for (const file of all)
      for (const specifier of specifiers(file)) {
        const why = privateReach(file, specifier, packages);
        if (why) found.push(`${relative(BENCH, file)}: '${specifier}' (${why})`);
      }
    assert.deepEqual(found, []);
  });
});
