// The package's rooms (folders of src/) and the direction of their imports (CONTRIBUTING.md, "The house"):
// a module imports its own room or a lower one, never a higher one, so the wire never learns of HTTP and a
// runtime adapter is never needed by the core. This test reads the sources and fails on any arrow that
// points up or sideways, and on a room the table does not place.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/** Each room's floor: a module may import from rooms on a strictly lower floor (and from its own room). */
const FLOORS: Record<string, number> = {
  mcp: 0, // SDK-compatible types
  runtime: 1, // what differs between Node and Bun, stated once per runtime
  buffers: 2, // lending and pooling of byte buffers
  wire: 3, // msgpack-v1: encoder, guarded decoder, frame and line readers
  jsonrpc: 3, // JSON-RPC message checks and kinds
  codec: 4, // messages to bytes and back, one interface for both wires
  'wire-choice': 5, // the wire-choice vocabulary: 'auto', how a wire was selected, the upgrade offer
  connection: 6, // stdio's byte-stream connection and its side of the wire upgrade
  'native-bytes': 6, // the native-bytes extension
  http: 6, // what HTTP client and server share: media types, errors, 2026-07-28 headers
  'http/content-coding': 6.5, // HTTP content codings: Accept-Encoding, the compression option, coded event streams, decoding within caps
  stdio: 7,
  'http/client': 7,
  // http/server, the web-standard server (Request in, Response out), cut by serving path as SDK v2 cuts it:
  'http/server/exchange': 7.1, // one HTTP exchange either path serves: the transport hub, the incoming POST read once, era, Host/Origin, replies and refusals, event streams
  'http/server/sessions': 7.2, // the 2025-11-25 session path: session transport, replay, readiness, the session table
  'http/server/per-request': 7.2, // the 2026-07-28 path: single-request transport, kept servers, Mcp-Param-*, listen
  'http/server': 7.5, // the handler routing by era and session id, the public transport, listen options
  'http/node': 8, // node:http adapter
  'http/bun': 8, // Bun.serve adapter
  redis: 8, // a shared event store for http/server
  agents: 8, // adapters for agent frameworks that take a server object (OpenAI Agents' MCPServer)
  '.': 9, // entry points: index.ts, wire-api.ts, and what composes the runtime adapters
};

/** Rooms on one floor that share through a lower room only (in both directions). */
const SEPARATE_PATHS: [string, string][] = [
  ['http/server/sessions', 'http/server/per-request'],
  ['http/server/per-request', 'http/server/sessions'],
];

const src = fileURLToPath(new URL('../../src/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const roomOf = (path: string) => relative(src, dirname(path)) || '.';
const IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

describe('layers', () => {
  const files = sources(src);

  it('finds the sources', () => {
    assert.ok(files.length > 50, `only ${files.length} sources under ${src}`);
  });

  it('places every room on a floor', () => {
    const unplaced = [...new Set(files.map(roomOf))].filter((room) => !(room in FLOORS));
    assert.deepEqual(unplaced, [], 'add new rooms to FLOORS (and to CONTRIBUTING.md)');
  });

  it('imports only from the same room or a lower floor', () => {
    const wrong: string[] = [];
    for (const file of files) {
      const room = roomOf(file);
      for (const imported of importsOf(file)) {
        const target = roomOf(imported);
        if (target !== room && !(FLOORS[target]! < FLOORS[room]!)) wrong.push(`${relative(src, file)} -> ${relative(src, imported)} (${room} ${FLOORS[room]} -> ${target} ${FLOORS[target]})`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('keeps the two serving paths apart: sessions/ and per-request/ never import each other', () => {
    const wrong = files.flatMap((file) =>
      importsOf(file)
        .filter((target) => SEPARATE_PATHS.some(([a, b]) => roomOf(file) === a && roomOf(target) === b))
        .map((target) => `${relative(src, file)} -> ${relative(src, target)}`),
    );
    assert.deepEqual(wrong, []);
  });

  it("keeps a POST's steps below the transport hub: they hand back values and never call it", () => {
    // The hub (exchange-transport.ts) reads a POST once (incoming-post.ts), has its path admit it, answers it
    // (post-replies.ts) and turns a refusal into a Response in one place; a step that imported the hub would
    // make the walk of a POST return to it between steps.
    const hub = join(src, 'http/server/exchange/exchange-transport.ts');
    const steps = ['incoming-post.ts', 'era.ts', 'post-replies.ts', 'responses.ts', 'stream-table.ts', 'event-stream.ts', 'event-format.ts'];
    const wrong = steps.filter((step) => importsOf(join(src, 'http/server/exchange', step)).includes(hub));
    assert.deepEqual(wrong, []);
  });

  it('has no import cycle, type imports included', () => {
    // A cycle, even of `import type` only, is two modules that cannot be read, moved or split apart: the
    // exchange room had one (era -> responses -> server-options -> post-replies -> incoming-post -> era) until
    // the public options file owned its option types. Every relative import counts, whatever it imports.
    const graph = new Map(files.map((file) => [file, importsOf(file)]));
    const cycles = importCycles(graph).map((cycle) => cycle.map((file) => relative(src, file)).join(' -> '));
    assert.deepEqual(cycles, []);
  });

  it('finds an import cycle (the check itself)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c', 'd']],
      ['c', ['a']],
      ['d', []],
      ['e', ['e']],
    ]);
    assert.deepEqual(importCycles(graph), [
      ['a', 'b', 'c', 'a'],
      ['e', 'e'],
    ]);
    assert.deepEqual(
      importCycles(
        new Map([
          ['a', ['b']],
          ['b', []],
          ['c', ['a', 'b']],
        ]),
      ),
      [],
    );
    const typeOnly = "import type { Refusal } from './responses.js';\nexport type { X } from '../y.js';";
    assert.deepEqual(
      [...typeOnly.matchAll(IMPORT)].map((match) => match[1]),
      ['./responses.js', '../y.js'],
      'type imports and re-exports are arrows too',
    );
  });

  it('gives each runtime entry its own adapter only', () => {
    for (const [entry, other] of [
      ['node.ts', 'http/bun'],
      ['bun.ts', 'http/node'],
    ] as const) {
      const reached = [...moduleGraph(join(src, entry))].filter((file) => roomOf(file) === other);
      assert.deepEqual(
        reached.map((file) => relative(src, file)),
        [],
        `${entry} reaches ${other}`,
      );
    }
  });
});

/** The source files a module imports (relative imports only). */
function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((match) => normalize(join(dirname(file), match[1]!.replace(/\.js$/, '.ts'))));
}

/**
 * One cycle through each back edge of a depth-first walk of the import graph, as the path that closes it
 * (first module repeated at the end); none when the graph is acyclic. Edges to modules outside the graph
 * are ignored.
 */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const walk = (file: string) => {
    path.push(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target) || done.has(target)) continue;
      const onPath = path.indexOf(target);
      if (onPath >= 0) cycles.push([...path.slice(onPath), target]);
      else walk(target);
    }
    path.pop();
    done.add(file);
  };
  for (const file of graph.keys()) if (!done.has(file)) walk(file);
  return cycles;
}

/** Every source file a module reaches through its imports, itself included. */
function moduleGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const target of importsOf(file)) walk(target);
  };
  walk(entry);
  return seen;
}

// The runtime rule (CONTRIBUTING.md, "Two rules keep runtimes apart"): only runtime/ asks which runtime it
// runs on; everything else asks runtime/ about a behaviour. And `node:` modules are imported only where a
// runtime's own API is the point, so the core entry (src/core.ts) stays runtime-neutral.

/** Source text without its comments, which may name runtimes freely. */
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');

/** Ways of asking which runtime this is. */
const RUNTIME_PROBES = [
  /\bisBun\b/,
  /\btypeof\s+\(?\s*(Bun|Deno|process|window|navigator|WebSocketPair)\b/,
  /\bprocess\s*\.\s*(versions|release)\b/,
  /\bglobalThis\b[^;\n]*?\.\s*(Bun|Deno|process)\b/,
  /\bnavigator\s*\.\s*userAgent\b/,
];

/** Where a runtime's own API is the point: its adapters and what only runs there. */
const RUNTIME_ROOMS = ['stdio', 'http/node', 'http/bun', 'redis'];
/** Files in other rooms that may import `node:`, each with its reason. */
const NODE_IMPORTS_ALLOWED: Record<string, string> = {
  'runtime/node.ts': 'what differs on Node is stated there',
  'runtime/zlib-codings.ts': 'content codings on node:zlib, for Node and Bun (imported by runtime/node.ts and runtime/bun.ts only)',
  'runtime/zlib-kept-context.ts': "a node:zlib context kept per coder and reset per reply: the dictionary coding's deflate, zstd per level (imported by runtime/zlib-codings.ts only)",
  'runtime/closed-before-write.ts': "Node's default fetch only (imported by runtime/node.ts): undici's channel and the socket's descriptor",
  'connection/stream-connection.ts': "stdio's byte-stream connection, on Node streams (types only); not in the core entry",
  'connection/stream-writer.ts': "stdio's writer: corks a Node stream until process.nextTick, tells a descriptor's fs.WriteStream (lent bytes come back through it); not in the core entry",
};
const NODE_IMPORT = () => /(?:from|import)\s*\(?\s*['"]node:[^'"]+['"]/g;

/** Violations of the runtime rule in the sources under `root`. */
function runtimeRuleViolations(root: string): string[] {
  const wrong: string[] = [];
  for (const file of sources(root)) {
    const path = relative(root, file);
    const room = relative(root, dirname(file)) || '.';
    const text = withoutComments(readFileSync(file, 'utf8'));
    const ownRoom = RUNTIME_ROOMS.some((r) => room === r || room.startsWith(`${r}/`));
    if (room !== 'runtime') {
      for (const probe of RUNTIME_PROBES) {
        const found = text.match(probe);
        // The Bun adapter calls Bun.serve, which it must find on globalThis; that is using Bun, not asking.
        if (found && !(room === 'http/bun' && /globalThis/.test(found[0]))) wrong.push(`${path}: asks which runtime it runs on (${found[0]}): ask runtime/ about a behaviour`);
      }
    }
    if (!ownRoom && !(path in NODE_IMPORTS_ALLOWED)) {
      for (const match of text.matchAll(NODE_IMPORT())) wrong.push(`${path}: imports ${match[0].replace(/^.*['"](node:[^'"]+)['"]$/, '$1')} outside the runtime rooms (${RUNTIME_ROOMS.join(', ')})`);
    }
  }
  return wrong;
}

describe('the runtime rule', () => {
  it('only runtime/ asks which runtime; node: only in the runtime rooms', () => {
    assert.deepEqual(runtimeRuleViolations(src), []);
  });

  it('catches a probe and a node: import (the check itself)', () => {
    const probes = ["import { isBun } from '../runtime/current.js';", 'const bun = typeof Bun !== "undefined";', 'if (process.versions.bun) {}', 'const d = (globalThis as any).Deno;'];
    for (const line of probes)
      assert.ok(
        RUNTIME_PROBES.some((probe) => probe.test(withoutComments(line))),
        line,
      );
    assert.ok(NODE_IMPORT().test("import { randomUUID } from 'node:crypto';"));
    assert.ok(!RUNTIME_PROBES.some((probe) => probe.test(withoutComments('// on Bun, typeof Bun is an object'))), 'a comment is not a probe');
  });
});
